// Read-only links to a run's replay (issue 44): made by the run's owner or an admin, for 1 hour to 30 days (7 by
// default), revocable. The link carries a random 256-bit token; only its SHA-256 is kept, so the database alone
// opens nothing. A revoked or unknown link is 404, an expired one 410; every open is on the audit trail.
import { createHash, randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';
import { record } from '../audit/audit.ts';

export const SHARE_MIN_S = 3600;
export const SHARE_MAX_S = 30 * 86400;
export const SHARE_DEFAULT_S = 7 * 86400;

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export const sharedReplayPath = (token: string) => `/replay/shared/${token}`;

export async function createShare(db: Db, runId: number, userId: number, expiresInS: number): Promise<{ id: number; token: string; expires_at: Date }> {
  const token = randomBytes(32).toString('base64url');
  return db.tx(async (q) => {
    const [row] = await q.query<{ id: number; expires_at: Date }>(
      `INSERT INTO replay_shares (run_id, token_hash, created_by, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))
       RETURNING id, expires_at`, [runId, hash(token), userId, expiresInS]);
    await record(q, { action: 'replay.share', target: { type: 'run', id: runId }, detail: { share_id: row.id, expires_at: row.expires_at } });
    return { id: row.id, token, expires_at: row.expires_at };
  });
}

/** The run's live links (not revoked, not expired), newest first. */
export async function liveShares(q: Queryable, runId: number) {
  return q.query(
    `SELECT s.id, s.created_at, s.expires_at, u.email AS created_by FROM replay_shares s JOIN users u ON u.id = s.created_by
     WHERE s.run_id = $1 AND s.revoked_at IS NULL AND s.expires_at > now() ORDER BY s.id DESC`, [runId]);
}

/** A link and the run it shows, for its revocation (the caller checks who may). */
export async function getShare(q: Queryable, id: number) {
  const [row] = await q.query<{ id: number; run_id: number; revoked_at: Date | null }>('SELECT id, run_id, revoked_at FROM replay_shares WHERE id = $1', [id]);
  return row ?? null;
}

export async function revokeShare(db: Db, id: number, runId: number): Promise<void> {
  await db.tx(async (q) => {
    const done = await q.query('UPDATE replay_shares SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id', [id]);
    if (done.length) await record(q, { action: 'replay.share_revoke', target: { type: 'run', id: runId }, detail: { share_id: id } });
  });
}

/** The link a token opens: its run, who shared it and until when; 404 when unknown or revoked, 410 once expired. */
export async function openShare(q: Queryable, token: string): Promise<{ id: number; run_id: number; by: string; expires_at: Date }> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw new HttpError(404, 'Replay link not found');
  const [row] = await q.query<{ id: number; run_id: number; by: string; expires_at: Date; revoked: boolean; expired: boolean }>(
    `SELECT s.id, s.run_id, u.email AS by, s.expires_at, s.revoked_at IS NOT NULL AS revoked, s.expires_at <= now() AS expired
     FROM replay_shares s JOIN users u ON u.id = s.created_by WHERE s.token_hash = $1`, [hash(token)]);
  if (!row || row.revoked) throw new HttpError(404, 'Replay link not found');
  if (row.expired) throw new HttpError(410, 'This link has expired');
  return { id: row.id, run_id: row.run_id, by: row.by, expires_at: row.expires_at };
}
