// The record of stored files (uploads and e-mail attachments alike): who owns each, for which agent, its
// original name, size and type; the bytes live under $DATA_DIR/files (server/files/storage.ts). Each agent
// keeps at most its storage quota: checked before an upload starts (it caps how much may arrive) and again
// when files are recorded, under a lock on the agent, so that writers side by side cannot pass it together.
import type { Db, Queryable } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';

export type StoredFile = { file_path: string; original_name: string; size: number; content_type: string };

const MB = 1024 * 1024;

/** Bytes of files the agent keeps. */
export async function storageUsed(db: Queryable, agentId: number): Promise<number> {
  const [row] = await db.query<{ used: string | number }>('SELECT COALESCE(sum(size_bytes), 0) AS used FROM uploaded_files WHERE agent_id = $1', [agentId]);
  return Number(row?.used ?? 0);
}

export class QuotaExceeded extends HttpError {
  constructor(quota: number, used: number) {
    const left = Math.max(0, quota - used);
    super(413, `Not enough storage left for this agent: ${(left / MB).toFixed(1)} MB of its ${Math.round(quota / MB)} MB remain`);
  }
}

/** Records files of an agent inside the caller's transaction; throws QuotaExceeded when they do not fit. */
export async function recordFiles(q: Queryable, ownerId: number, agentId: number, files: StoredFile[], quota: number): Promise<void> {
  if (!files.length) return;
  await q.query('SELECT id FROM agents WHERE id = $1 FOR UPDATE', [agentId]);
  const used = await storageUsed(q, agentId);
  if (used + files.reduce((n, f) => n + f.size, 0) > quota) throw new QuotaExceeded(quota, used);
  for (const f of files) {
    await q.query(
      'INSERT INTO uploaded_files (owner_id, agent_id, file_path, original_name, size_bytes, content_type) VALUES ($1, $2, $3, $4, $5, $6)',
      [ownerId, agentId, f.file_path, f.original_name, f.size, f.content_type]);
  }
}

/** An upload through the API: recorded within the quota, and the agent's current file. */
export async function recordUpload(db: Db, ownerId: number, agentId: number, file: StoredFile, quota: number): Promise<void> {
  await db.tx(async (q) => {
    await recordFiles(q, ownerId, agentId, [file], quota);
    await q.query('UPDATE agents SET file_path = $2, updated_at = now() WHERE id = $1', [agentId, file.file_path]);
  });
}
