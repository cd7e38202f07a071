// A thread waiting for a person (threads.needs_help, issue 19): marking it, answering it (which clears it and
// lets the agent run again), and finding the agent's waiting thread. The runner's guard and the agent's own
// ask_for_help set it (supervision/); a person's message in the thread answers it.
import type { Queryable } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';

/** Why a run paused: the agent asked, or one of the runaway guard's rules. */
export type PauseReason = 'asked' | 'repeat' | 'cost' | 'calls';

/** threads.needs_help: what the person is asked, since when, why, and the run state the agent resumes with. */
export type NeedsHelp = { question: string; asked_at: string; reason: PauseReason; resume: 'run' | 'run_all' };

/** Marks the thread as waiting for a person. */
export async function setNeedsHelp(q: Queryable, threadId: number, help: NeedsHelp): Promise<void> {
  await q.query('UPDATE threads SET needs_help = $2, updated_at = now() WHERE id = $1', [threadId, JSON.stringify(help)]);
}

/**
 * A person answered the thread (wrote in it, or handed the desktop back): clears needs_help and, when it was set,
 * lets a stopped agent run again as it did before it paused. Inside the caller's transaction; what it cleared, or null.
 */
export async function answerHelp(q: Queryable, threadId: number): Promise<(NeedsHelp & { agent_id: number }) | null> {
  const [row] = await q.query<{ agent_id: number; needs_help: NeedsHelp | null }>(
    'SELECT agent_id, needs_help FROM threads WHERE id = $1 FOR UPDATE', [threadId]);
  if (!row?.needs_help) return null;
  await q.query('UPDATE threads SET needs_help = NULL, updated_at = now() WHERE id = $1', [threadId]);
  const resume = row.needs_help.resume === 'run' ? 'run' : 'run_all';
  await q.query(`UPDATE agents SET target_run_state = $2, updated_at = now() WHERE id = $1 AND target_run_state = 'stop'`, [row.agent_id, resume]);
  return { ...row.needs_help, resume, agent_id: row.agent_id };
}

/** After answerHelp committed: the agent's views and the runners learn that it runs again. */
export function announceAnswered(bus: Bus, answered: { agent_id: number; resume: string } | null): void {
  if (!answered) return;
  bus.publish(TOPICS.agentChanged(answered.agent_id), { agent_id: answered.agent_id, target_run_state: answered.resume });
  bus.publish(TOPICS.runnerWake, { agent_id: answered.agent_id });
}

/** The thread of the agent waiting for a person, if any (the newest). */
export async function threadNeedingHelp(q: Queryable, agentId: number): Promise<number | null> {
  const [row] = await q.query<{ id: number }>(
    'SELECT id FROM threads WHERE agent_id = $1 AND needs_help IS NOT NULL ORDER BY updated_at DESC, id DESC LIMIT 1', [agentId]);
  return row?.id ?? null;
}
