// Recordings (teaching by demonstration) in the database: one row per screenshare session, from start
// through stop and the audio to the summary. Who may touch which row is decided here too: only the user
// who recorded it (an admin acts through impersonation), and a foreign session answers like a missing one.
import type { Db, Queryable, Row } from '../db/db.ts';
import { record, SYSTEM } from '../audit/audit.ts';
import { HttpError } from '../http/errors.ts';

export type RecordingRow = {
  id: number;
  session_id: string;
  user_id: number;
  agent_id: number;
  thread_id: number | null;
  started_at: Date;
  stopped_at: Date | null;
  auto_stopped: boolean;
  audio_path: string | null;
  audio_content_type: string | null;
  audio_bytes: number | null;
  summarized_at: Date | null;
  /** The instance that records it (its action tracker is in that instance's memory); null on one instance. */
  instance_id: string | null;
};

const one = async <T extends Row = Row>(db: Queryable, sql: string, params: unknown[]) => (await db.query<T>(sql, params))[0] ?? null;

const COLUMNS = 'id, session_id, user_id, agent_id, thread_id, started_at, stopped_at, auto_stopped, ' +
  'audio_path, audio_content_type, audio_bytes, summarized_at, instance_id';

/** The agent, if it is the user's own (admins act on other users' agents by impersonating them). */
export async function ownAgent(db: Queryable, userId: number, agentId: number): Promise<void> {
  const row = await one<{ owner_id: number }>(db, 'SELECT owner_id FROM agents WHERE id = $1', [agentId]);
  if (!row || row.owner_id !== userId) throw new HttpError(404, 'Agent not found');
}

/** A thread of that agent, else 404. */
export async function agentThread(db: Queryable, agentId: number, threadId: number): Promise<number> {
  const row = await one(db, 'SELECT 1 FROM threads WHERE id = $1 AND agent_id = $2', [threadId, agentId]);
  if (!row) throw new HttpError(404, 'Thread not found');
  return threadId;
}

export async function insertRecording(
  db: Db, r: { sessionId: string; userId: number; agentId: number; threadId: number | null; startedAt: Date; instanceId?: string | null },
) {
  return db.tx(async (q) => {
    const [row] = await q.query<RecordingRow>(
      `INSERT INTO recordings (session_id, user_id, agent_id, thread_id, started_at, instance_id)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [r.sessionId, r.userId, r.agentId, r.threadId, r.startedAt, r.instanceId ?? null]);
    await record(q, { action: 'recording.start', target: { type: 'recording', id: row.id }, detail: { agent_id: r.agentId, thread_id: r.threadId } });
    return row;
  });
}

/** The recording with that session id, whoever made it (calls from another instance, which checked the user). */
export async function recordingBySession(db: Queryable, sessionId: string): Promise<RecordingRow> {
  const row = await one<RecordingRow>(db, `SELECT ${COLUMNS} FROM recordings WHERE session_id = $1`, [sessionId.toLowerCase()]);
  if (!row) throw new HttpError(404, 'Recording session not found');
  return row;
}

/** The caller's recording with that session id; another user's answers 404 like a missing one. */
export async function ownRecording(db: Queryable, userId: number, sessionId: string): Promise<RecordingRow> {
  const row = /^[0-9a-f-]{36}$/i.test(sessionId)
    ? await one<RecordingRow>(db, `SELECT ${COLUMNS} FROM recordings WHERE session_id = $1`, [sessionId.toLowerCase()])
    : null;
  if (!row || row.user_id !== userId) throw new HttpError(404, 'Recording session not found');
  return row;
}

export async function getRecording(db: Queryable, id: number): Promise<RecordingRow | null> {
  return one<RecordingRow>(db, `SELECT ${COLUMNS} FROM recordings WHERE id = $1`, [id]);
}

/** The user's newest recording of the agent that has not stopped. */
export async function openRecording(db: Queryable, userId: number, agentId: number): Promise<RecordingRow | null> {
  return one<RecordingRow>(db, 
    `SELECT ${COLUMNS} FROM recordings WHERE user_id = $1 AND agent_id = $2 AND stopped_at IS NULL ORDER BY started_at DESC, id DESC LIMIT 1`,
    [userId, agentId]);
}

/** Stops it once; the row as it is afterwards (a second stop changes nothing). */
export async function markStopped(db: Db, id: number, at: Date, auto: boolean): Promise<RecordingRow> {
  return db.tx(async (q) => {
    const [stopped] = await q.query<RecordingRow>(
      `UPDATE recordings SET stopped_at = $2, auto_stopped = $3 WHERE id = $1 AND stopped_at IS NULL RETURNING ${COLUMNS}`, [id, at, auto]);
    if (!stopped) return (await q.query<RecordingRow>(`SELECT ${COLUMNS} FROM recordings WHERE id = $1`, [id]))[0];
    // Stopped by the server (too long, shut down): the system did it, not the person whose request is being served.
    await record(q, {
      action: 'recording.stop', target: { type: 'recording', id }, detail: { agent_id: stopped.agent_id, auto },
      ...(auto ? { actor: SYSTEM, background: true } : {}),
    });
    return stopped;
  });
}

/** Claims the audio slot: false when audio already arrived for this recording. */
export async function setAudio(db: Queryable, id: number, path: string, contentType: string, bytes: number): Promise<boolean> {
  const rows = await db.query(
    'UPDATE recordings SET audio_path = $2, audio_content_type = $3, audio_bytes = $4 WHERE id = $1 AND audio_bytes IS NULL RETURNING id',
    [id, path, contentType, bytes]);
  return rows.length > 0;
}

/** Gives the audio slot back (the audio at `path` could not be kept). */
export async function clearAudio(db: Queryable, id: number, path: string): Promise<void> {
  await db.query('UPDATE recordings SET audio_path = NULL, audio_content_type = NULL, audio_bytes = NULL WHERE id = $1 AND audio_path = $2', [id, path]);
}

/** Counts a keyframe's bytes (or gives them back, negative) in the agent's storage. */
export async function addKeyframeBytes(db: Queryable, id: number, bytes: number): Promise<void> {
  await db.query('UPDATE recordings SET keyframe_bytes = keyframe_bytes + $2 WHERE id = $1', [id, bytes]);
}

export async function markSummarized(db: Db, id: number, threadId: number): Promise<void> {
  await db.tx(async (q) => {
    const [row] = await q.query<{ agent_id: number }>('UPDATE recordings SET summarized_at = now() WHERE id = $1 RETURNING agent_id', [id]);
    if (!row) return;
    const detail = { agent_id: row.agent_id, thread_id: threadId };
    await record(q, { action: 'recording.summarize', actor: SYSTEM, background: true, target: { type: 'recording', id }, detail });
  });
}
