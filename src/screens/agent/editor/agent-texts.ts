// The agent editor's three texts, each behind its own endpoint; loaded and saved in parallel
// (spec §7: "Saving the editor sends the three text updates in parallel").
import { getAgentText, putAgentText, type AgentTextKey } from '../../../lib/api.ts';

export type AgentTexts = Record<AgentTextKey, string>;

export const TEXT_KEYS: readonly AgentTextKey[] = ['system_prompt', 'notes', 'instructions'];

export async function loadAgentTexts(agentId: number): Promise<AgentTexts> {
  const [system_prompt, notes, instructions] = await Promise.all(TEXT_KEYS.map((key) => getAgentText(agentId, key)));
  // A text never written may come back null; the text areas want strings.
  return { system_prompt: system_prompt ?? '', notes: notes ?? '', instructions: instructions ?? '' };
}

export async function saveAgentTexts(agentId: number, texts: AgentTexts): Promise<void> {
  await Promise.all(TEXT_KEYS.map((key) => putAgentText(agentId, key, texts[key])));
}
