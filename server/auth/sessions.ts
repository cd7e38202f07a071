// Refresh sessions behind an httpOnly, SameSite=Strict cookie; the database keeps only a hash.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Db, Queryable } from '../db/db.ts';

export const REFRESH_COOKIE = 'aw_refresh';
const SESSION_DAYS = 30;

const hash = (token: string) => createHash('sha256').update(token).digest('base64url');

export type Session = { id: number; user_id: number };

/** A new session; the cookie value is returned, only its hash is stored. */
export async function createSession(db: Queryable, userId: number): Promise<{ token: string; id: number }> {
  const token = randomBytes(32).toString('base64url');
  const [row] = await db.query<{ id: number }>(
    `INSERT INTO auth_sessions (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '${SESSION_DAYS} days') RETURNING id`,
    [userId, hash(token)]);
  return { token, id: row!.id };
}

export async function findSession(db: Db, token: string): Promise<Session | null> {
  return db.one<Session>('SELECT id, user_id FROM auth_sessions WHERE token_hash = $1 AND expires_at > now()', [hash(token)]);
}

export async function sessionAlive(db: Db, id: number): Promise<boolean> {
  return !!(await db.one('SELECT 1 FROM auth_sessions WHERE id = $1 AND expires_at > now()', [id]));
}

/** Ends the cookie's session (and sweeps expired ones); returns the ended session, if there was one. */
export async function deleteSession(db: Queryable, token: string): Promise<Session | null> {
  const rows = await db.query<Session & { token_hash: string }>(
    'DELETE FROM auth_sessions WHERE token_hash = $1 OR expires_at < now() RETURNING id, user_id, token_hash', [hash(token)]);
  const ended = rows.find((r) => r.token_hash === hash(token));
  return ended ? { id: ended.id, user_id: ended.user_id } : null;
}

/** Ends every session of the user but `keep` (the one asking, if any); the ended ones' ids. */
export async function endOtherSessions(db: Queryable, userId: number, keep: number | null): Promise<number[]> {
  const rows = await db.query<{ id: number }>('DELETE FROM auth_sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2 RETURNING id', [userId, keep]);
  return rows.map((r) => r.id);
}

export function readCookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

/** Secure over TLS, behind a proxy that says https, and whenever PUBLIC_URL is https (a proxy may not say so). */
export function sessionCookie(req: IncomingMessage, value: string | null, publicUrl: string | null = null): string {
  const secure = (req.socket as { encrypted?: boolean }).encrypted || req.headers['x-forwarded-proto'] === 'https' || !!publicUrl?.startsWith('https:');
  const maxAge = value ? SESSION_DAYS * 86400 : 0;
  return `${REFRESH_COOKIE}=${value ?? ''}; Path=/api/auth; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}
