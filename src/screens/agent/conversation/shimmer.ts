// The 'Thinking' shimmer (spec §4): the thread runs next (schedule_sequence 1), the agent is running,
// and the last step is the user's (text or files) so an answer is due.
import type { Step, Thread } from '../../../lib/types.ts';

export function showThinking(
  thread: Pick<Thread, 'schedule_sequence'> | null | undefined,
  agentRunning: boolean,
  steps: readonly Pick<Step, 'user_text' | 'user_files'>[],
): boolean {
  if (!thread || thread.schedule_sequence !== 1 || !agentRunning) return false;
  const last = steps[steps.length - 1];
  return !!last && (!!last.user_text || (last.user_files?.length ?? 0) > 0);
}
