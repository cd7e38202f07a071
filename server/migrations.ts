// The schema: db/'s SQL migrations in order, with the steps in Node that need what a wing knows (015 seals the
// signing keys, the deployment secrets and where the audit chain starts: server/secrets-at-rest.ts).
import type { Db } from './db/db.ts';
import { runMigrations, SQL_MIGRATIONS, type Migration } from './db/migrate.ts';
import type { SecretBox } from './system/secret-box.ts';
import { sealAtRest } from './secrets-at-rest.ts';

const STEPS: Record<number, Migration['step']> = { 15: sealAtRest };

export const MIGRATIONS: Migration[] = SQL_MIGRATIONS.map((m) => ({ ...m, step: STEPS[m.id] }));

/** `secrets`: the server's key, for the steps that seal; a fresh database migrates without it. */
export function migrate(db: Db, secrets: SecretBox | null = null): Promise<number[]> {
  return runMigrations(db, MIGRATIONS, secrets);
}
