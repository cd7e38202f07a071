// Personal API tokens in SQL (issue 46): made with a secret shown once (`aw_` + 32 random bytes, base64url), kept as
// the SHA-256 of the whole token and its first characters; found by that hash, refused once expired or revoked.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.ts';
import type { TokenScope } from '../http/identity.ts';

export const TOKEN_PREFIX = 'aw_';
const SHOWN = 10;
/** `last_used_at` is written at most this often per token: a busy script does not write on every request. */
const USE_EVERY_MS = 60_000;

export type ApiToken = {
  id: number; name: string; scope: TokenScope; prefix: string; created_at: string;
  expires_at: string | null; last_used_at: string | null; revoked_at: string | null;
};

const COLUMNS = 'id, name, scope, prefix, created_at, expires_at, last_used_at, revoked_at';
const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');

/** A new token for the user; its secret is in the answer and nowhere else. */
export async function createToken(
  q: Queryable, userId: number, name: string, scope: TokenScope, expiresInDays: number | null,
): Promise<ApiToken & { token: string }> {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const [row] = await q.query<ApiToken>(
    `INSERT INTO api_tokens (user_id, name, scope, hash, prefix, expires_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::int IS NULL THEN NULL ELSE now() + make_interval(days => $6::int) END) RETURNING ${COLUMNS}`,
    [userId, name, scope, hashOf(token), token.slice(0, SHOWN), expiresInDays]);
  return { ...row, token };
}

export async function listTokens(q: Queryable, userId: number): Promise<ApiToken[]> {
  return q.query<ApiToken>(`SELECT ${COLUMNS} FROM api_tokens WHERE user_id = $1 ORDER BY id DESC`, [userId]);
}

export async function listAllTokens(q: Queryable): Promise<(ApiToken & { user_id: number; user_email: string })[]> {
  return q.query(`SELECT ${COLUMNS.replace(/(\w+)/g, 't.$1')}, t.user_id, u.email AS user_email
    FROM api_tokens t JOIN users u ON u.id = t.user_id ORDER BY t.id DESC LIMIT 1000`);
}

/** The token if `userId` owns it (any token for an admin); null otherwise. */
export async function tokenFor(q: Queryable, id: number, userId: number, admin: boolean): Promise<(ApiToken & { user_id: number }) | null> {
  const [row] = await q.query<ApiToken & { user_id: number }>(
    `SELECT ${COLUMNS}, user_id FROM api_tokens WHERE id = $1 AND (user_id = $2 OR $3)`, [id, userId, admin]);
  return row ?? null;
}

export async function revokeToken(q: Queryable, id: number): Promise<void> {
  await q.query('UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1', [id]);
}

/** Who a presented token acts for, and within what; null for a token that is unknown, expired or revoked. */
export async function tokenIdentity(q: Queryable, token: string): Promise<{ id: number; userId: number; scope: TokenScope; expiresAt: number } | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 100) return null;
  const [row] = await q.query<{ id: number; user_id: number; scope: TokenScope; expires_at: Date | null; stale: boolean }>(
    `SELECT id, user_id, scope, expires_at, last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $2) AS stale
       FROM api_tokens WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [hashOf(token), USE_EVERY_MS / 1000]);
  if (!row) return null;
  if (row.stale) await q.query('UPDATE api_tokens SET last_used_at = now() WHERE id = $1', [row.id]);
  return { id: row.id, userId: row.user_id, scope: row.scope, expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : Infinity };
}
