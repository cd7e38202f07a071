// Thread steps as the message list holds them (spec §4 "Realtime steps"): one per sequence, sorted
// ascending; a step arriving again (realtime update, or the answer to our own send) replaces the old one.
import type { Step } from '../../../lib/types.ts';

export function upsertStep(steps: readonly Step[], step: Step): Step[] {
  const at = steps.findIndex((s) => s.sequence === step.sequence);
  if (at !== -1) {
    const next = steps.slice();
    next[at] = step;
    return next;
  }
  // Usually the newest: walk from the end.
  let index = steps.length;
  while (index > 0 && steps[index - 1].sequence > step.sequence) index--;
  return [...steps.slice(0, index), step, ...steps.slice(index)];
}

/** Merges `incoming` into `steps` by sequence (incoming wins). */
export function mergeSteps(steps: readonly Step[], incoming: readonly Step[]): Step[] {
  return incoming.reduce<Step[]>((list, step) => upsertStep(list, step), steps.slice());
}

/** Tool calls the list shows: those with status 'pending' are hidden (spec §2). */
export const visibleToolCalls = (step: Pick<Step, 'tool_calls'>) => (step.tool_calls ?? []).filter((call) => call.status !== 'pending');
