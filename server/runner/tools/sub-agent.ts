// The sub_agent tool: hands a self-contained task to a sub-conversation with the same model and
// tools (no further sub-agents); its traces carry thread_name 'Sub: …'.
import { short, str, ToolInputError, type Tool } from './types.ts';

export const subAgentTool: Tool = {
  name: 'sub_agent',
  definition: {
    name: 'sub_agent',
    description: 'Hand a self-contained task to a sub-agent that works on the same desktop with the same tools and returns its final answer.',
    input_schema: {
      type: 'object', properties: { task: { type: 'string', description: 'What the sub-agent should do, fully explained' } }, required: ['task'],
    },
  },
  async run(input, ctx) {
    const task = str(input.task, 20_000)?.trim();
    if (!task) throw new ToolInputError('task is required');
    if (!ctx.runSubAgent) throw new ToolInputError('A sub-agent cannot start another sub-agent');
    return { text: await ctx.runSubAgent(task) };
  },
  describe: (input) => `sub_agent: ${short(String(input.task ?? ''), 60)}`,
};
