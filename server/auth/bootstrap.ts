// First start: make sure an admin exists (ADMIN_EMAIL/ADMIN_PASSWORD, else admin@localhost with a random password,
// printed once and kept in DATA_DIR/admin-password.txt, readable by the server's user only, until someone deletes it).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../db/db.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { record, SYSTEM } from '../audit/audit.ts';
import { createUser, findUserByEmail } from './users.ts';

/** The file that keeps a generated admin password, so that a log scrolled past it does not lose it. */
export const ADMIN_PASSWORD_FILE = 'admin-password.txt';

export async function ensureAdmin(
  db: Db, email: string | null, password: string | null, log: (m: string) => void, dataDir: string | null = null,
): Promise<void> {
  if (email) {
    const existing = await findUserByEmail(db, email);
    if (!existing) {
      if (!password) throw new Error('ADMIN_EMAIL is set for a new account but ADMIN_PASSWORD is not');
      await createUser(db, email, password, 'admin');
      log(`Created admin account ${email}`);
    } else if (existing.role !== 'admin' || password) {
      // The environment is the source of truth for the bootstrap admin.
      const changed = password ? !(await verifyPassword(password, existing.password_hash)) : false;
      await db.tx(async (q) => {
        await q.query('UPDATE users SET role = $2, password_hash = COALESCE($3, password_hash), updated_at = now() WHERE id = $1',
          [existing.id, 'admin', password ? await hashPassword(password) : null]);
        const target = { type: 'user' as const, id: existing.id };
        if (existing.role !== 'admin') {
          await record(q, { action: 'user.role_change', actor: SYSTEM, target, detail: { email, from: existing.role, to: 'admin', by: 'ADMIN_EMAIL' } });
        }
        if (changed) await record(q, { action: 'auth.password_change', actor: SYSTEM, target, detail: { email, by: 'ADMIN_PASSWORD' } });
      });
    }
    return;
  }
  if (await db.one("SELECT 1 FROM users WHERE role = 'admin' LIMIT 1")) return;
  const generated = randomBytes(12).toString('base64url');
  await createUser(db, 'admin@localhost', generated, 'admin');
  const file = dataDir ? join(dataDir, ADMIN_PASSWORD_FILE) : null;
  if (file) writeFileSync(file, `admin@localhost\n${generated}\n`, { mode: 0o600 });
  log(`Created admin account admin@localhost with password: ${generated}  (${file ? `also kept in ${file}; ` : ''}`
    + 'set ADMIN_EMAIL/ADMIN_PASSWORD to choose your own)');
}
