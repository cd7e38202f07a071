// The notes tool: the agent's notes.md (agents.notes), read, replaced or appended to.
import { appendNote, MAX_NOTES, readNotes, replaceNotes } from '../../agents/agents.ts';
import { str, ToolInputError, type Tool } from './types.ts';
import { TOPICS } from '../../realtime/topics.ts';

export const notesTool: Tool = {
  name: 'notes',
  definition: {
    name: 'notes',
    description: 'Read or change your notes.md, a Markdown file that persists between conversations and is part of your instructions. ' +
      "Use 'append' to add a line, 'replace' to rewrite it all.",
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
      const notes = await readNotes(ctx.db, ctx.agent.id);
      return { text: notes ? notes : '(notes.md is empty)' };
    }
    const text = str(input.text, MAX_NOTES);
    if (text === null) throw new ToolInputError(`text is required for ${String(action)} (at most ${MAX_NOTES} characters)`);
    if (action !== 'replace' && action !== 'append') throw new ToolInputError("action must be 'read', 'replace' or 'append'");
    const notes = action === 'replace' ? await replaceNotes(ctx.db, ctx.agent.id, text) : await appendNote(ctx.db, ctx.agent.id, `- ${text.trim()}`);
    ctx.bus.publish(TOPICS.agentChanged(ctx.agent.id), { agent_id: ctx.agent.id });
    return { text: `notes.md saved (${notes?.length ?? 0} characters).` };
  },
  describe: (input) => `notes: ${input.action}`,
};
