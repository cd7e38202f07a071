// The ask_for_help tool: the agent asks its person a question and its run pauses. The thread then waits for a
// person (threads.needs_help, issue 19) until they answer in the chat or take control and hand the desktop back;
// the runner does the pausing when it sees the output's `pause`.
import { short, str, ToolInputError, type Tool } from './types.ts';

export const MAX_QUESTION = 2000;

export const askForHelpTool: Tool = {
  name: 'ask_for_help',
  definition: {
    name: 'ask_for_help',
    description: 'Ask your user for help when you are stuck, need a decision, a password or anything only a person can give, '
      + 'or when something on the desktop needs a person (a captcha, a sign-in). Your run pauses until they answer in the chat '
      + 'or take control of the desktop and hand it back; you then get their answer, or a log of what they did and a fresh screenshot.',
    input_schema: {
      type: 'object',
      properties: { question: { type: 'string', description: 'What you need, as a short question to the person' } },
      required: ['question'],
    },
  },
  async run(input) {
    const question = str(input.question, MAX_QUESTION)?.trim();
    if (!question) throw new ToolInputError(`question is required (at most ${MAX_QUESTION} characters)`);
    return { text: `Asked the person: "${question}". The run paused until they answer.`, pause: { question } };
  },
  describe: (input) => `ask_for_help: ${short(String(input.question ?? ''), 60)}`,
};
