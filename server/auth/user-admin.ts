// Users as the /api/users routes change and search them (sign-in and the user record itself: auth/users.ts).
import type { Queryable } from '../db/db.ts';

export async function setUserName(db: Queryable, id: number, name: string): Promise<void> {
  await db.query('UPDATE users SET name = $2, updated_at = now() WHERE id = $1', [id, name]);
}

/** Sets the limit; the one it replaces. */
export async function setSpendLimit(db: Queryable, id: number, limitCents: number): Promise<number> {
  const [row] = await db.query<{ from: number }>(
    `WITH old AS (SELECT monthly_spend_limit_cents AS n FROM users WHERE id = $1 FOR UPDATE)
     UPDATE users SET monthly_spend_limit_cents = $2, updated_at = now() FROM old WHERE users.id = $1 RETURNING old.n AS "from"`, [id, limitCents]);
  return row?.from ?? 0;
}

/**
 * Up to 50 users whose e-mail or name contains `search` (case-insensitive; '' lists the first 50), each with how they
 * sign in (`sign_in`: 'password' and/or 'sso'; oidc_accounts is the sso wing's table, read here for the admin's list).
 */
export async function searchUsers(db: Queryable, search: string) {
  const escaped = search.trim().toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c);
  return db.query(
    `SELECT id, email, role, name, monthly_spend_limit_cents,
       array_remove(ARRAY[CASE WHEN password_hash IS NOT NULL THEN 'password' END,
         CASE WHEN EXISTS (SELECT 1 FROM oidc_accounts o WHERE o.user_id = users.id) THEN 'sso' END], NULL) AS sign_in
     FROM users
     WHERE $1 = '' OR lower(email) LIKE '%' || $1 || '%' OR lower(name) LIKE '%' || $1 || '%'
     ORDER BY lower(email) LIMIT 50`, [escaped]);
}
