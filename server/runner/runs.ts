// Runs (issue 44): one row per stretch of work on a thread, from the claim to its stop, finish, failure or pause.
// Its steps, chat messages and model calls carry its id (StepWriter, the traces); its cost is theirs, summed at
// the end. A run left open by an instance that died is ended with the thread it ran (takeOrphans).
import type { Queryable } from '../db/db.ts';
import type { Desktop } from '../desktop/index.ts';

export type RunOutcome = 'done' | 'stopped' | 'failed' | 'paused';

/** A run as the runner opened it. */
export type OpenRun = { id: number; threadId: number; agentId: number; ownerId: number };

/** A recording of the run's desktop (server/replay): a frame after each action, and its end with the run. */
export type RunRecording = {
  /** The screen as the action left it is in the recording before the action's end is written. */
  afterAction(): Promise<void>;
  stop(): Promise<void>;
};

/** Starts recording a run's desktop; null when it is not recorded (no room for it). */
export type RecordRun = (run: OpenRun, desktop: Desktop) => Promise<RunRecording | null>;

export async function openRun(q: Queryable, threadId: number, agentId: number, instanceId: string): Promise<OpenRun> {
  const [row] = await q.query<{ id: number; owner_id: number }>(
    `INSERT INTO runs (thread_id, agent_id, owner_id, instance_id) SELECT $1, $2, a.owner_id, $3 FROM agents a WHERE a.id = $2
     RETURNING id, owner_id`, [threadId, agentId, instanceId]);
  if (!row) throw new Error(`agent ${agentId} is gone`);
  return { id: row.id, threadId, agentId, ownerId: row.owner_id };
}

/** Ends the run with its outcome and the cost of its model calls. */
export async function endRun(q: Queryable, runId: number, outcome: RunOutcome): Promise<void> {
  await q.query(
    `UPDATE runs SET ended_at = now(), outcome = $2,
       cost = (SELECT coalesce(sum(estimated_cost), 0) FROM llm_traces WHERE run_id = $1) WHERE id = $1 AND ended_at IS NULL`,
    [runId, outcome]);
}

/** The open runs of threads whose run an instance left behind (it died): failed, as their threads are. */
export async function failOpenRuns(q: Queryable, threadIds: number[]): Promise<void> {
  if (!threadIds.length) return;
  await q.query(
    `UPDATE runs SET ended_at = now(), outcome = 'failed',
       cost = (SELECT coalesce(sum(estimated_cost), 0) FROM llm_traces t WHERE t.run_id = runs.id)
     WHERE thread_id = ANY($1::int[]) AND ended_at IS NULL`, [threadIds]);
}
