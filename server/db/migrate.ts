// Applies the numbered SQL migrations in order, each once, recorded in schema_migrations. A migration may have a step
// in Node after its SQL, in the same transaction; the steps that need a wing's knowledge are added above the kernel
// (server/migrations.ts: 015 seals with the server's key, which never goes to the database).
import type { SecretBox } from '../system/secret-box.ts';
import type { Db, Queryable } from './db.ts';
import m001 from './migrations/001_init.sql';
import m002 from './migrations/002_runner.sql';
import m003 from './migrations/003_trace_days.sql';
import m004 from './migrations/004_schedules.sql';
import m005 from './migrations/005_mail.sql';
import m006 from './migrations/006_billing_reports.sql';
import m007 from './migrations/007_recordings.sql';
import m008 from './migrations/008_step_page_json.sql';
import m009 from './migrations/009_storage.sql';
import m010 from './migrations/010_mail_auth.sql';
import m011 from './migrations/011_spend_reservations.sql';
import m012 from './migrations/012_desktop_leases.sql';
import m013 from './migrations/013_audit.sql';
import m014 from './migrations/014_supervision.sql';
import m015 from './migrations/015_secrets_at_rest.sql';
import m016 from './migrations/016_instances.sql';
import m017 from './migrations/017_password_resets.sql';
import m018 from './migrations/018_foreign_key_indexes.sql';
import m019 from './migrations/019_audit_counts.sql';
import m020 from './migrations/020_trace_parts.sql';
import m021 from './migrations/021_runs.sql';
import m022 from './migrations/022_vault.sql';
import m023 from './migrations/023_api_tokens.sql';
import m024 from './migrations/024_webhooks.sql';
import m025 from './migrations/025_oidc.sql';
import m026 from './migrations/026_push.sql';
import m027 from './migrations/027_desktop_sleep.sql';
import m028 from './migrations/028_home_checkpoints.sql';

export type Migration = { id: number; name: string; sql: string; step?: (q: Queryable, secrets: SecretBox | null) => Promise<void> };

/** The schema's SQL; server/migrations.ts adds the Node steps. */
export const SQL_MIGRATIONS: Migration[] = [
  { id: 1, name: 'init', sql: m001 },
  { id: 2, name: 'runner', sql: m002 },
  { id: 3, name: 'trace_days', sql: m003 },
  { id: 4, name: 'schedules', sql: m004 },
  { id: 5, name: 'mail', sql: m005 },
  { id: 6, name: 'billing_reports', sql: m006 },
  { id: 7, name: 'recordings', sql: m007 },
  { id: 8, name: 'step_page_json', sql: m008 },
  { id: 9, name: 'storage', sql: m009 },
  { id: 10, name: 'mail_auth', sql: m010 },
  { id: 11, name: 'spend_reservations', sql: m011 },
  { id: 12, name: 'desktop_leases', sql: m012 },
  { id: 13, name: 'audit', sql: m013 },
  { id: 14, name: 'supervision', sql: m014 },
  { id: 15, name: 'secrets_at_rest', sql: m015 },
  { id: 16, name: 'instances', sql: m016 },
  { id: 17, name: 'password_resets', sql: m017 },
  { id: 18, name: 'foreign_key_indexes', sql: m018 },
  { id: 19, name: 'audit_counts', sql: m019 },
  { id: 20, name: 'trace_parts', sql: m020 },
  { id: 21, name: 'runs', sql: m021 },
  { id: 22, name: 'vault', sql: m022 },
  { id: 23, name: 'api_tokens', sql: m023 },
  { id: 24, name: 'webhooks', sql: m024 },
  { id: 25, name: 'oidc', sql: m025 },
  { id: 26, name: 'push', sql: m026 },
  { id: 27, name: 'desktop_sleep', sql: m027 },
  { id: 28, name: 'home_checkpoints', sql: m028 },
];

/** `secrets`: the server's key, for the steps that seal; a fresh database migrates without it. */
export async function runMigrations(db: Db, migrations: Migration[], secrets: SecretBox | null): Promise<number[]> {
  await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  const done = new Set((await db.query<{ id: number }>('SELECT id FROM schema_migrations')).map((r) => r.id));
  const applied: number[] = [];
  for (const m of migrations) {
    if (done.has(m.id)) continue;
    await db.tx(async (q) => {
      for (const statement of splitStatements(m.sql)) await q.query(statement);
      await m.step?.(q, secrets);
      await q.query('INSERT INTO schema_migrations (id, name) VALUES ($1, $2)', [m.id, m.name]);
    });
    applied.push(m.id);
  }
  return applied;
}

/** Splits on semicolons at line ends, outside $$-quoted bodies (functions). */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  let quoted = false;
  for (const line of sql.split('\n')) {
    current.push(line);
    if ((line.match(/\$\$/g)?.length ?? 0) % 2 === 1) quoted = !quoted;
    if (!quoted && /;\s*$/.test(line)) {
      statements.push(current.join('\n').replace(/;\s*$/, ''));
      current = [];
    }
  }
  statements.push(current.join('\n'));
  return statements.map((s) => s.replace(/^\s*--.*$/gm, '').trim()).filter(Boolean);
}
