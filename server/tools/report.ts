// The report tool: creates a report for the agent's owner (or adds to one it made) with entries
// (title, description, completion_rate 0..1 or null). Entries below 1 or without a rate need review.
import { short, str, ToolInputError, type Tool } from './types.ts';

type Entry = { title: string; description: string; completion_rate: number | null };

export const reportTool: Tool = {
  name: 'report',
  definition: {
    name: 'report',
    description: 'Write a report for your user: a new report with a title, a description and entries, or more entries for a report you made before (report_id). Each entry has a title, a description and completion_rate from 0 to 1 (null when unknown); entries not fully complete are flagged for review.',
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
            properties: { title: { type: 'string' }, description: { type: 'string' }, completion_rate: { type: ['number', 'null'], minimum: 0, maximum: 1 } },
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
      const row = await ctx.db.one<{ id: number }>('SELECT id FROM reports WHERE id = $1 AND owner_id = $2 AND agent_id = $3', [Number(input.report_id), ctx.agent.owner_id, ctx.agent.id]);
      if (!row) throw new ToolInputError(`Report ${input.report_id} does not exist or was not made by this agent`);
      reportId = row.id;
    } else {
      const title = str(input.title, 500)?.trim();
      if (!title) throw new ToolInputError('title is required for a new report (at most 500 characters)');
      const description = str(input.description ?? '', 20_000);
      if (description === null) throw new ToolInputError('description must be text (at most 20000 characters)');
      const row = await ctx.db.one<{ id: number }>(
        'INSERT INTO reports (owner_id, agent_id, thread_id, title, description) VALUES ($1, $2, $3, $4, $5) RETURNING id',
        [ctx.agent.owner_id, ctx.agent.id, ctx.threadId, title, description]);
      reportId = row!.id;
    }
    for (const e of entries) {
      await ctx.db.query(
        'INSERT INTO report_entries (report_id, title, description, completion_rate, needs_review) VALUES ($1, $2, $3, $4, $5)',
        [reportId, e.title, e.description, e.completion_rate, e.completion_rate === null || e.completion_rate < 1]);
    }
    const review = entries.filter((e) => e.completion_rate === null || e.completion_rate < 1).length;
    return { text: `Report ${reportId} saved with ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}${review ? ` (${review} flagged for review)` : ''}.` };
  },
  describe: (input) => (input.report_id ? `report: add to #${input.report_id}` : `report: ${short(String(input.title ?? ''), 50)}`),
};

function parseEntries(value: unknown): Entry[] {
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
    return { title, description, completion_rate: typeof rate === 'number' ? rate : null };
  });
}
