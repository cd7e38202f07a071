// The report tool: creates a report for the agent's owner (or adds to one it made) with entries
// (title, description, completion_rate 0..1 or null, needs_review). Entries below 1 or flagged by the
// agent need the user's review (server/reports/reports.ts keeps the rule and the SQL).
import { addEntries, agentReportId, createReport, needsReview, type NewEntry } from '../../reports/reports.ts';
import { short, str, ToolInputError, type Tool } from './types.ts';

export const reportTool: Tool = {
  name: 'report',
  definition: {
    name: 'report',
    description: 'Write a report for your user: a new report with a title, a description and entries, ' +
      'or more entries for a report you made before (report_id). ' +
      'Each entry has a title, a description and completion_rate from 0 to 1 (null when unknown); ' +
      'entries not fully complete, or with needs_review, are flagged for the user to review.',
    input_schema: {
      type: 'object',
      properties: {
        report_id: { type: 'integer', description: 'Add the entries to this report instead of creating one' },
        title: { type: 'string' },
        description: { type: 'string' },
        entries: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              title: { type: 'string' },
              description: { type: 'string' },
              completion_rate: { type: ['number', 'null'], minimum: 0, maximum: 1 },
              needs_review: { type: 'boolean', description: 'Ask the user to review this entry even when it is complete' },
            },
            required: ['title'],
          },
        },
      },
    },
  },
  async run(input, ctx) {
    const entries = parseEntries(input.entries);
    let reportId: number;
    if (input.report_id !== undefined && input.report_id !== null) {
      const id = Number(input.report_id);
      const found = Number.isInteger(id) && id > 0 && id <= 2147483647 ? await agentReportId(ctx.db, id, ctx.agent.owner_id, ctx.agent.id) : null;
      if (!found) throw new ToolInputError(`Report ${input.report_id} does not exist or was not made by this agent`);
      reportId = found;
    } else {
      const title = str(input.title, 500)?.trim();
      if (!title) throw new ToolInputError('title is required for a new report (at most 500 characters)');
      const description = str(input.description ?? '', 20_000);
      if (description === null) throw new ToolInputError('description must be text (at most 20000 characters)');
      reportId = await createReport(ctx.db, { ownerId: ctx.agent.owner_id, agentId: ctx.agent.id, threadId: ctx.threadId, title, description });
    }
    await addEntries(ctx.db, reportId, entries);
    const review = entries.filter(needsReview).length;
    const flagged = review ? ` (${review} flagged for review)` : '';
    return { text: `Report ${reportId} saved with ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}${flagged}.` };
  },
  describe: (input) => (input.report_id ? `report: add to #${input.report_id}` : `report: ${short(String(input.title ?? ''), 50)}`),
};

function parseEntries(value: unknown): NewEntry[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > 100) throw new ToolInputError('entries must be a list of at most 100 entries');
  return value.map((e, i) => {
    const title = str(e?.title, 500)?.trim();
    if (!title) throw new ToolInputError(`entries[${i}].title is required`);
    const description = str(e.description ?? '', 20_000);
    if (description === null) throw new ToolInputError(`entries[${i}].description must be text`);
    const rate = e.completion_rate;
    if (rate !== undefined && rate !== null && !(typeof rate === 'number' && rate >= 0 && rate <= 1)) {
      throw new ToolInputError(`entries[${i}].completion_rate must be a number from 0 to 1, or null`);
    }
    if (e.needs_review !== undefined && typeof e.needs_review !== 'boolean') throw new ToolInputError(`entries[${i}].needs_review must be true or false`);
    return { title, description, completion_rate: typeof rate === 'number' ? rate : null, flagged: e.needs_review === true };
  });
}
