// Reading runs (issue 44): a thread's runs for its page, and one run with what its replay needs. Access: the run's
// owner and admins see it; anyone else gets the same 404 as for a run that does not exist.
import type { Queryable } from '../db/db.ts';
import type { User } from '../auth/index.ts';
import { HttpError } from '../http/errors.ts';

export type RunRow = {
  id: number;
  thread_id: number;
  agent_id: number;
  owner_id: number;
  instance_id: string;
  started_at: Date;
  ended_at: Date | null;
  outcome: string;
  cost: number;
  recording_path: string | null;
  recording_started_at: Date | null;
  recording_bytes: number;
  recording_done: boolean;
  recording_stopped: string | null;
  recording_activity: [number, number][] | null;
  agent_name: string;
  thread_name: string;
};

export const RUN_NOT_FOUND = 'Run not found';

/** A thread's runs, newest first (the thread's access is checked by the caller). */
export async function listRuns(q: Queryable, threadId: number) {
  return q.query(
    `SELECT id, thread_id, agent_id, started_at, ended_at, outcome,
       CASE WHEN ended_at IS NULL THEN (SELECT coalesce(sum(estimated_cost), 0) FROM llm_traces WHERE run_id = runs.id) ELSE cost END AS cost,
       recording_path IS NOT NULL AS has_replay
     FROM runs WHERE thread_id = $1 ORDER BY id DESC LIMIT 500`, [threadId]);
}

export async function getRun(q: Queryable, id: number): Promise<RunRow | null> {
  const [row] = await q.query<RunRow>(
    `SELECT r.id, r.thread_id, r.agent_id, r.owner_id, r.instance_id, r.started_at, r.ended_at, r.outcome, r.recording_path,
       r.recording_started_at, r.recording_bytes::float8 AS recording_bytes, r.recording_done, r.recording_stopped, r.recording_activity,
       CASE WHEN r.ended_at IS NULL THEN (SELECT coalesce(sum(estimated_cost), 0) FROM llm_traces WHERE run_id = r.id) ELSE r.cost END AS cost,
       a.name AS agent_name, t.name AS thread_name
     FROM runs r JOIN agents a ON a.id = r.agent_id JOIN threads t ON t.id = r.thread_id WHERE r.id = $1`, [id]);
  return row ?? null;
}

/** The run when `user` may see it: its owner or an admin; else 404. */
export async function visibleRun(q: Queryable, user: User, id: number): Promise<RunRow> {
  const run = await getRun(q, id);
  if (!run || (run.owner_id !== user.id && user.role !== 'admin')) throw new HttpError(404, RUN_NOT_FOUND);
  return run;
}
