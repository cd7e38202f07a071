// Why a scheduled thread is not running yet (issue 42): its agent is stopped (a new agent starts stopped, and the
// message would otherwise sit under an hourglass with nothing said), or other threads are ahead of it in the
// schedule. Pure: the chat shows the words and, for a stopped agent, a start button.
import type { Agent, Thread } from '../../../lib/types.ts';
import { isDraft } from './drafts.ts';
import { threadStatus } from './thread-status.ts';

export type QueueNotice = { text: string; canStart: boolean };

export function queueNotice(thread: Thread | null, agent: Pick<Agent, 'target_run_state' | 'threads'>): QueueNotice | null {
  if (!thread || isDraft(thread) || thread.needs_help || threadStatus(thread) !== 'scheduled') return null;
  if (agent.target_run_state === 'stop') return { text: 'The agent is stopped: this thread runs when you start it.', canStart: true };
  const mine = thread.schedule_sequence ?? 0;
  const ahead = (agent.threads ?? []).filter((t) => t.id !== thread.id
    && (threadStatus(t) === 'running' || (threadStatus(t) === 'scheduled' && (t.schedule_sequence ?? 0) < mine))).length;
  if (ahead === 0) return null;
  return { text: `Waiting behind ${ahead} other ${ahead === 1 ? 'thread' : 'threads'} in the schedule.`, canStart: false };
}
