// Refresh sessions behind an httpOnly, SameSite=Strict cookie; the database keeps only a hash.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Db } from '../db/db.ts';

export const REFRESH_COOKIE = 'aw_refresh';
const SESSION_DAYS = 30;

const hash = (token: string) => createHash('sha256').update(token).digest('base64url');

export async function createSession(db: Db, userId: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.query(
    `INSERT INTO auth_sessions (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '${SESSION_DAYS} days')`,
    [userId, hash(token)]);
  return token;
}

export async function sessionUserId(db: Db, token: string): Promise<number | null> {
  const row = await db.one<{ user_id: number }>(
    'SELECT user_id FROM auth_sessions WHERE token_hash = $1 AND expires_at > now()', [hash(token)]);
  return row?.user_id ?? null;
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await db.query('DELETE FROM auth_sessions WHERE token_hash = $1 OR expires_at < now()', [hash(token)]);
}

export function readCookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

export function sessionCookie(req: IncomingMessage, value: string | null): string {
  const secure = (req.socket as { encrypted?: boolean }).encrypted || req.headers['x-forwarded-proto'] === 'https';
  const maxAge = value ? SESSION_DAYS * 86400 : 0;
  return `${REFRESH_COOKIE}=${value ?? ''}; Path=/api/auth; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}
