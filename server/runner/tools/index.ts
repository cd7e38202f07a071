// The tool set of a run: every tool by name, and the definitions the model is offered.
import { askForHelpTool } from './ask-for-help.ts';
import { computerTool } from './computer.ts';
import { emailTool } from './email.ts';
import { notesTool } from './notes.ts';
import { reportTool } from './report.ts';
import { subAgentTool } from './sub-agent.ts';
import { fillCredentialTool } from './fill-credential.ts';
import type { GrantedCredential, Tool } from './types.ts';
import type { ToolDefinition } from '../../models/types.ts';

export const ALL_TOOLS: Tool[] = [computerTool, notesTool, reportTool, emailTool, subAgentTool, askForHelpTool];

export function toolSet(options: { computer: boolean; subAgents: boolean; credentials?: GrantedCredential[] }): {
  tools: Map<string, Tool>; definitions: ToolDefinition[];
} {
  // A sub-agent neither starts sub-agents nor asks the person: its parent does.
  const chosen = ALL_TOOLS.filter((t) => (t.name !== 'computer' || options.computer)
    && ((t.name !== 'sub_agent' && t.name !== 'ask_for_help') || options.subAgents));
  // Credentials are typed on the desktop: offered with the computer, once one is granted.
  if (options.computer && options.credentials?.length) chosen.push(fillCredentialTool(options.credentials));
  return {
    tools: new Map(chosen.map((t) => [t.name, t])),
    definitions: chosen.flatMap((t) => (t.definition ? [t.definition] : [])),
  };
}
