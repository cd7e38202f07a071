// Single-use tokens for the local payment portal, which opens in a new tab without the Bearer token:
// 32 random bytes in the URL, only their SHA-256 kept, valid for a few minutes, spent on first use.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.ts';

export const PORTAL_TOKEN_MINUTES = 15;

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export async function issuePortalToken(db: Queryable, userId: number, minutes = PORTAL_TOKEN_MINUTES): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.query('DELETE FROM billing_portal_tokens WHERE expires_at < now()');
  await db.query(
    `INSERT INTO billing_portal_tokens (token_hash, user_id, expires_at) VALUES ($1, $2, now() + make_interval(mins => $3))`,
    [hash(token), userId, minutes]);
  return token;
}

/** The token's user if it is live and unused, and spends it; null otherwise (unknown, used or expired). */
export async function spendPortalToken(db: Queryable, token: string): Promise<number | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const [row] = await db.query<{ user_id: number }>(
    `UPDATE billing_portal_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
    [hash(token)]);
  return row?.user_id ?? null;
}
