// The runner's SQL: claiming the head of an agent's queue with
// FOR UPDATE SKIP LOCKED (two instances on one PostgreSQL never run the same thread, nor two
// threads of one agent), whether a claim still holds, releasing it, and failing runs whose instance died.
import type { Db, Queryable } from '../db/db.ts';

export type Claim = { thread_id: number; agent_id: number; mode: 'run' | 'run_all' };

/** The instances (their registry rows, stale judged against staleSeconds) other than `instanceId` that own a run now. */
export async function runOwners(db: Queryable, instanceId: string, staleSeconds: number) {
  return db.query<{ id: string; host: string; pid: number; stale: boolean }>(
    `SELECT i.id, i.host, i.pid, i.heartbeat_at <= now() - make_interval(secs => $2) AS stale FROM instances i
     WHERE i.id <> $1 AND EXISTS (SELECT 1 FROM threads t WHERE t.thread_running AND t.run_owner = i.id)`, [instanceId, staleSeconds]);
}

/**
 * Claims one runnable queue head (of `agentId` only, when given): the thread at schedule_sequence 1
 * of an agent playing (run) or going fast (run_all), not running, not stopped, whose agent runs no
 * other thread and is not `held` (a hand-back of a take-over of its desktop is being written: its next
 * run must see it). Marks it running for this instance and the agent as running.
 */
export async function claimNext(db: Db, instanceId: string, agentId: number | null = null, held: number[] = []): Promise<Claim | null> {
  return db.tx(async (q) => {
    const [row] = await q.query<Claim>(
      `SELECT t.id AS thread_id, t.agent_id, a.target_run_state AS mode
       FROM threads t JOIN agents a ON a.id = t.agent_id
       WHERE t.schedule_sequence = 1 AND NOT t.thread_running
         AND t.target_run_state IS DISTINCT FROM 'stop'
         AND a.target_run_state IN ('run', 'run_all')
         AND ($1::int IS NULL OR t.agent_id = $1::int)
         AND NOT (t.agent_id = ANY($2::int[]))
         AND NOT EXISTS (SELECT 1 FROM threads r WHERE r.agent_id = t.agent_id AND r.thread_running)
       ORDER BY t.updated_at, t.id
       LIMIT 1
       FOR UPDATE OF t, a SKIP LOCKED`,
      [agentId, held]);
    if (!row) return null;
    // The agent row is ours now; this statement's fresh snapshot sees any claim that another
    // instance committed for the same agent while we waited.
    const busy = await q.query('SELECT 1 FROM threads WHERE agent_id = $1 AND thread_running AND id <> $2 LIMIT 1', [row.agent_id, row.thread_id]);
    if (busy.length) return null;
    await q.query(
      // A thread that waited for a person and runs again (the agent was played without an answer) waits no more.
      `UPDATE threads SET thread_running = true, run_owner = $2, run_started_at = now(), error_message = '', needs_help = NULL, updated_at = now()
       WHERE id = $1`,
      [row.thread_id, instanceId]);
    await q.query(`UPDATE agents SET agent_running = true, running_state = 'running', updated_at = now() WHERE id = $1`, [row.agent_id]);
    return row;
  });
}

/**
 * Threads marked running by an instance whose heartbeat is older than `staleSeconds` (or gone):
 * taken over (locked) and returned, so the caller can fail them. Our own runs are never orphans.
 */
export async function takeOrphans(db: Db, instanceId: string, staleSeconds: number): Promise<{ id: number; agent_id: number }[]> {
  return db.tx(async (q) => {
    const rows = await q.query<{ id: number; agent_id: number }>(
      `SELECT t.id, t.agent_id FROM threads t
       WHERE t.thread_running AND t.run_owner IS DISTINCT FROM $1
         AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = t.run_owner AND i.heartbeat_at > now() - make_interval(secs => $2))
       FOR UPDATE OF t SKIP LOCKED`,
      [instanceId, staleSeconds]);
    if (rows.length) {
      await q.query(
        `UPDATE threads SET thread_running = false, run_owner = NULL, error_message = 'Interrupted by a server restart', updated_at = now()
         WHERE id = ANY($1::int[])`, [rows.map((r) => r.id)]);
    }
    return rows;
  });
}

export type ClaimState = { run_owner: string | null; thread_state: string | null; agent_state: string };

/** Who runs the thread now and what its thread and agent were told (stop?); null when the thread is gone. */
export async function claimState(db: Queryable, threadId: number): Promise<ClaimState | null> {
  const [row] = await db.query<ClaimState>(
    `SELECT t.run_owner, t.target_run_state AS thread_state, a.target_run_state AS agent_state
     FROM threads t JOIN agents a ON a.id = t.agent_id WHERE t.id = $1`, [threadId]);
  return row ?? null;
}

/** Ends this instance's run of the thread (no change when another instance took it over), with its error ('' for none). */
export async function releaseClaim(db: Queryable, threadId: number, instanceId: string, error: string): Promise<void> {
  await db.query(
    `UPDATE threads SET thread_running = false, run_owner = NULL, error_message = $3, updated_at = now() WHERE id = $1 AND run_owner = $2`,
    [threadId, instanceId, error]);
}

/** agent_running and running_state from what actually runs; a row that says so already is not rewritten (a dead row less). */
export async function refreshAgentState(db: Queryable, agentId: number): Promise<void> {
  await db.query(
    `WITH now_runs AS (SELECT EXISTS (SELECT 1 FROM threads WHERE agent_id = $1 AND thread_running) AS running)
     UPDATE agents a SET agent_running = n.running, running_state = CASE WHEN n.running THEN 'running' ELSE 'idle' END, updated_at = now()
     FROM now_runs n
     WHERE a.id = $1 AND (a.agent_running, a.running_state) IS DISTINCT FROM (n.running, CASE WHEN n.running THEN 'running' ELSE 'idle' END)`,
    [agentId]);
}
