// User records: lookups, creation and the public shape the API returns.
import { prepared, type Queryable } from '../db/db.ts';
import { hashPassword } from './passwords.ts';

import type { Role, User } from '../http/identity.ts';

export type { Role, User };

const COLUMNS = 'id, email, role, name, monthly_spend_limit_cents, created_at';

export function publicUser(u: User) {
  return { id: u.id, email: u.email, role: u.role, name: u.name, monthly_spend_limit_cents: u.monthly_spend_limit_cents };
}

const FIND_USER = prepared('users.find', `SELECT ${COLUMNS} FROM users WHERE id = $1`);

export async function findUser(db: Queryable, id: number): Promise<User | null> {
  return (await db.query<User>(FIND_USER, [id]))[0] ?? null;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<(User & { password_hash: string | null }) | null> {
  const rows = await db.query<User & { password_hash: string | null }>(
    `SELECT ${COLUMNS}, password_hash FROM users WHERE lower(email) = lower($1)`, [email.trim()]);
  return rows[0] ?? null;
}

/** `password` null: an account without one (made at a single sign-on: it signs in only through its provider). */
export async function createUser(db: Queryable, email: string, password: string | null, role: Role = 'user'): Promise<User> {
  const rows = await db.query<User>(
    `INSERT INTO users (email, password_hash, role) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
    [email.trim(), password === null ? null : await hashPassword(password), role]);
  return rows[0];
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
export function validEmail(email: unknown): email is string {
  return typeof email === 'string' && email.trim().length <= 254 && EMAIL.test(email.trim());
}
