// The record of stored files (uploads and e-mail attachments alike): who owns each, for which agent, its
// original name, size and type; the bytes live under $DATA_DIR/files (server/files/storage.ts). Each agent
// keeps at most its storage quota, counted over everything stored for it: its files, its recordings' audio
// and keyframes, its runs' desktop recordings (issue 44), and what the database does not record (its desktop's screenshot, passed in as `unrecorded`).
// Checked before a body starts (it caps how much may arrive) and again when it is recorded, under a lock on
// the agent, so that writers side by side cannot pass it together.
import type { Db, Queryable } from '../db/db.ts';
import { StatusError } from '../system/status-error.ts';
import { record } from '../audit/audit.ts';

export type StoredFile = { file_path: string; original_name: string; size: number; content_type: string };

/** An agent's quota in bytes, and the bytes stored for it that no table records (its screenshot). */
export type Quota = { bytes: number; unrecorded: number };
const asQuota = (quota: number | Quota): Quota => (typeof quota === 'number' ? { bytes: quota, unrecorded: 0 } : quota);

const MB = 1024 * 1024;

/** Bytes the database records for the agent: its files, its recordings' audio and keyframes, its runs' recordings. */
export async function storageUsed(db: Queryable, agentId: number): Promise<number> {
  const [row] = await db.query<{ used: string | number }>(
    `SELECT (SELECT COALESCE(sum(size_bytes), 0) FROM uploaded_files WHERE agent_id = $1)
          + (SELECT COALESCE(sum(COALESCE(audio_bytes, 0) + keyframe_bytes), 0) FROM recordings WHERE agent_id = $1)
          + (SELECT COALESCE(sum(recording_bytes), 0) FROM runs WHERE agent_id = $1) AS used`,
    [agentId]);
  return Number(row?.used ?? 0);
}

export class QuotaExceeded extends StatusError {
  constructor(quota: number, used: number) {
    const left = Math.max(0, quota - used);
    super(413, `Not enough storage left for this agent: ${(left / MB).toFixed(1)} MB of its ${Math.round(quota / MB)} MB remain`);
  }
}

/** Locks the agent and checks that `adding` more bytes fit its quota, inside the caller's transaction; else QuotaExceeded. */
export async function ensureQuota(q: Queryable, agentId: number, quota: number | Quota, adding: number): Promise<void> {
  const { bytes, unrecorded } = asQuota(quota);
  await q.query('SELECT id FROM agents WHERE id = $1 FOR UPDATE', [agentId]);
  const used = (await storageUsed(q, agentId)) + unrecorded;
  if (used + adding > bytes) throw new QuotaExceeded(bytes, used);
}

/** Records files of an agent inside the caller's transaction; throws QuotaExceeded when they do not fit. */
export async function recordFiles(q: Queryable, ownerId: number, agentId: number, files: StoredFile[], quota: number | Quota): Promise<void> {
  if (!files.length) return;
  await ensureQuota(q, agentId, quota, files.reduce((n, f) => n + f.size, 0));
  for (const f of files) {
    await q.query(
      'INSERT INTO uploaded_files (owner_id, agent_id, file_path, original_name, size_bytes, content_type) VALUES ($1, $2, $3, $4, $5, $6)',
      [ownerId, agentId, f.file_path, f.original_name, f.size, f.content_type]);
  }
}

/** An upload through the API: recorded within the quota, and the agent's current file. */
export async function recordUpload(db: Db, ownerId: number, agentId: number, file: StoredFile, quota: number | Quota): Promise<void> {
  await db.tx(async (q) => {
    await recordFiles(q, ownerId, agentId, [file], quota);
    await q.query('UPDATE agents SET file_path = $2, updated_at = now() WHERE id = $1', [agentId, file.file_path]);
    await record(q, {
      action: 'file.upload', target: { type: 'agent', id: agentId },
      detail: { file_path: file.file_path, name: file.original_name, size: file.size, content_type: file.content_type },
    });
  });
}

export type UploadRow = { id: number; file_path: string; original_name: string; size_bytes: number; created_at: Date };

/** The agent's stored files (uploads and mail attachments), newest first. */
export function agentUploads(db: Queryable, agentId: number): Promise<UploadRow[]> {
  return db.query<UploadRow>(
    `SELECT id, file_path, original_name, size_bytes::float8 AS size_bytes, created_at FROM uploaded_files
     WHERE agent_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1000`, [agentId]);
}

/** One stored file of the agent, or null. */
export async function agentUpload(db: Queryable, agentId: number, fileId: number): Promise<UploadRow | null> {
  const [row] = await db.query<UploadRow>(
    'SELECT id, file_path, original_name, size_bytes::float8 AS size_bytes, created_at FROM uploaded_files WHERE agent_id = $1 AND id = $2',
    [agentId, fileId]);
  return row ?? null;
}
