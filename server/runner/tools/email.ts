// The email tool: drafts an outbound message on the thread. It waits in requires_approval until a
// person approves it (then server/mail sends it); the thread is marked as needing approval. The
// recipient is kept with its domain in ASCII (xn--): what the approver sees is what gets sent.
import { draftOutbound } from '../../mail/index.ts';
import { AddressError, asciiAddress } from '../../mail/index.ts';
import { short, str, ToolInputError, type Tool } from './types.ts';

export const emailTool: Tool = {
  name: 'email',
  definition: {
    name: 'email',
    description: 'Draft an email. It is not sent right away: a person approves it first.',
    input_schema: {
      type: 'object',
      properties: {
        to: { type: 'string', description: 'Recipient address' },
        subject: { type: 'string' },
        text: { type: 'string', description: 'Plain-text body' },
      },
      required: ['to', 'text'],
    },
  },
  async run(input, ctx) {
    const raw = str(input.to, 254)?.trim();
    if (!raw) throw new ToolInputError(`"${String(input.to ?? '')}" is not an email address`);
    let to: string;
    try {
      to = asciiAddress(raw, !!ctx.smtpUtf8);
    } catch (err) {
      if (err instanceof AddressError) throw new ToolInputError(err.message);
      throw err;
    }
    const text = str(input.text, 100_000);
    if (!text?.trim()) throw new ToolInputError('text is required (at most 100000 characters)');
    const subject = str(input.subject ?? '', 500);
    if (subject === null) throw new ToolInputError('subject must be text (at most 500 characters)');
    const from = ctx.agent.email_prefix ? `${ctx.agent.email_prefix}@${ctx.mailDomain}` : '';
    // On a thread that came in by mail this answers the last message received (Message-ID, In-Reply-To).
    const row = await draftOutbound(ctx.db, ctx.bus, { threadId: ctx.threadId, agentId: ctx.agent.id, from, to, subject, text, mailDomain: ctx.mailDomain });
    return { text: `Email ${row.id} to ${to} drafted; it waits for approval before it is sent.` };
  },
  describe: (input) => `email: to ${String(input.to ?? '?')} "${short(String(input.subject ?? input.text ?? ''), 40)}"`,
};
