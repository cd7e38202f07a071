// One-time links to choose a new password: an admin makes one for a user (who lost theirs, or never had one that
// works), the user opens it and sets their own. Only the token's hash is stored; it is spent when used, and
// worthless after RESET_MINUTES.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.ts';

export const RESET_MINUTES = 60;
const hash = (token: string) => createHash('sha256').update(token).digest('base64url');

/** A new link's token for the user (made by `by`), and when it expires. */
/** `by`: the admin who made it, or null for one the user asked for by mail. */
export async function issueReset(q: Queryable, userId: number, by: number | null): Promise<{ token: string; expires_at: Date }> {
  const token = randomBytes(32).toString('base64url');
  const [row] = await q.query<{ expires_at: Date }>(
    `INSERT INTO password_resets (token_hash, user_id, created_by, expires_at) VALUES ($1, $2, $3, now() + make_interval(mins => $4))
     RETURNING expires_at`, [hash(token), userId, by, RESET_MINUTES]);
  return { token, expires_at: row.expires_at };
}

/** Spends the token: the user it was for, or null when it is unknown, spent or expired (expired ones are swept). */
export async function takeReset(q: Queryable, token: string): Promise<number | null> {
  const rows = await q.query<{ user_id: number; live: boolean }>(
    `DELETE FROM password_resets WHERE token_hash = $1 OR expires_at < now() RETURNING user_id, token_hash = $1 AND expires_at >= now() AS live`,
    [hash(token)]);
  return rows.find((r) => r.live)?.user_id ?? null;
}
