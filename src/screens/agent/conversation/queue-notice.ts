// Why a thread is not running (issue 42): its mail is held for its owner (an unverified sender, or over the hourly
// runs), its agent is stopped (a new agent starts stopped, and the message would otherwise sit under an hourglass
// with nothing said), or other threads are ahead of it in the schedule. Pure: the chat shows the words, and a Run
// button for held mail, a start button for a stopped agent.
import type { Agent, Thread } from '../../../lib/types.ts';
import { isDraft } from './drafts.ts';
import { threadStatus } from './thread-status.ts';

export type QueueNotice = { text: string; canStart: boolean; canRun?: boolean };

const HELD: Record<'unverified' | 'rate', string> = {
  unverified: 'Held: the sender could not be verified (SPF, DKIM, DMARC), so this mail does not run by itself. Run it if you trust it.',
  rate: 'Held: mail already started as many runs of this agent as it may in an hour. Run it to start it now.',
};

export function queueNotice(thread: Thread | null, agent: Pick<Agent, 'target_run_state' | 'threads'>): QueueNotice | null {
  if (!thread || isDraft(thread) || thread.needs_help) return null;
  if (threadStatus(thread) === 'held' && thread.held_reason) return { text: HELD[thread.held_reason], canStart: false, canRun: true };
  if (threadStatus(thread) !== 'scheduled') return null;
  if (agent.target_run_state === 'stop') return { text: 'The agent is stopped: this thread runs when you start it.', canStart: true };
  const mine = thread.schedule_sequence ?? 0;
  const ahead = (agent.threads ?? []).filter((t) => t.id !== thread.id
    && (threadStatus(t) === 'running' || (threadStatus(t) === 'scheduled' && (t.schedule_sequence ?? 0) < mine))).length;
  if (ahead === 0) return null;
  return { text: `Waiting behind ${ahead} other ${ahead === 1 ? 'thread' : 'threads'} in the schedule.`, canStart: false };
}
