// The notes tool: the agent's notes.md (agents.notes), read, replaced or appended to.
import { str, ToolInputError, type Tool } from './types.ts';

const MAX_NOTES = 200_000;

export const notesTool: Tool = {
  name: 'notes',
  definition: {
    name: 'notes',
    description: "Read or change your notes.md, a Markdown file that persists between conversations and is part of your instructions. Use 'append' to add a line, 'replace' to rewrite it all.",
    input_schema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['read', 'replace', 'append'] },
        text: { type: 'string', description: "The new content ('replace') or the text to add ('append')" },
      },
      required: ['action'],
    },
  },
  async run(input, ctx) {
    const action = input.action;
    if (action === 'read') {
      const row = await ctx.db.one<{ notes: string }>('SELECT notes FROM agents WHERE id = $1', [ctx.agent.id]);
      return { text: row?.notes ? row.notes : '(notes.md is empty)' };
    }
    const text = str(input.text, MAX_NOTES);
    if (text === null) throw new ToolInputError(`text is required for ${String(action)} (at most ${MAX_NOTES} characters)`);
    if (action !== 'replace' && action !== 'append') throw new ToolInputError("action must be 'read', 'replace' or 'append'");
    const row = await ctx.db.one<{ notes: string }>(
      action === 'replace'
        ? 'UPDATE agents SET notes = $2, updated_at = now() WHERE id = $1 RETURNING notes'
        : `UPDATE agents SET notes = left(CASE WHEN notes = '' THEN $2 ELSE rtrim(notes, E'\\n') || E'\\n' || $2 END, ${MAX_NOTES}), updated_at = now() WHERE id = $1 RETURNING notes`,
      [ctx.agent.id, action === 'append' ? `- ${text.trim()}` : text]);
    ctx.bus.publish(`agent:${ctx.agent.id}:changed`, { agent_id: ctx.agent.id });
    return { text: `notes.md saved (${row?.notes.length ?? 0} characters).` };
  },
  describe: (input) => `notes: ${input.action}`,
};
