// The fill_credential tool (issue 45): types a field of a credential the agent was granted into the focused field
// of its desktop. The model names the credential and the field; it is told the credentials' names, targets and
// fields, never a value, and gets back only what happened.
import { short, ToolInputError, type GrantedCredential, type Tool } from './types.ts';

const FIELDS = ['username', 'password', 'totp', 'sign_in'];

/** The tool as this run's model is offered it: its description lists the agent's credentials. */
export function fillCredentialTool(granted: GrantedCredential[]): Tool {
  const listed = granted.map((c) => `- "${c.name}": fields ${c.fields.join(', ')}; may be typed into ${c.targets.join(', ') || 'nothing yet'}`);
  return {
    name: 'fill_credential',
    definition: {
      name: 'fill_credential',
      description: 'Type a stored credential into the field that has the keyboard focus on your desktop, without seeing it. '
        + 'Click or focus the field first. field "sign_in" types the username, Tab, the password and Enter, starting in the username field; '
        + '"totp" types the current one-time code. The server checks that the focused page or window is one of the credential\'s targets '
        + 'and refuses otherwise. Your credentials:\n' + listed.join('\n'),
      input_schema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The credential\'s name' },
          field: { type: 'string', enum: FIELDS, description: 'What to type' },
        },
        required: ['name', 'field'],
      },
    },
    async run(input, ctx) {
      const name = typeof input.name === 'string' ? input.name : '';
      const field = typeof input.field === 'string' ? input.field : '';
      if (!name) throw new ToolInputError('name is required');
      if (!FIELDS.includes(field)) throw new ToolInputError(`field must be one of ${FIELDS.join(', ')}`);
      if (!ctx.credentials) throw new ToolInputError('no credentials are granted to you');
      try {
        return { text: await ctx.credentials.fill(name, field) };
      } catch (err) {
        if ((err as Error).name === 'FillRefused') throw new ToolInputError((err as Error).message);
        throw err;
      }
    },
    describe: (input) => `fill_credential: ${input.field} of ${short(String(input.name ?? ''), 40)}`,
  };
}
