// Applies the numbered SQL migrations in order, each once, recorded in schema_migrations.
import type { Db } from './db.ts';
import m001 from './migrations/001_init.sql';
import m002 from './migrations/002_runner.sql';

export const MIGRATIONS: { id: number; name: string; sql: string }[] = [{ id: 1, name: 'init', sql: m001 }, { id: 2, name: 'runner', sql: m002 }];

export async function migrate(db: Db): Promise<number[]> {
  await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  const done = new Set((await db.query<{ id: number }>('SELECT id FROM schema_migrations')).map((r) => r.id));
  const applied: number[] = [];
  for (const m of MIGRATIONS) {
    if (done.has(m.id)) continue;
    await db.tx(async (q) => {
      for (const statement of splitStatements(m.sql)) await q.query(statement);
      await q.query('INSERT INTO schema_migrations (id, name) VALUES ($1, $2)', [m.id, m.name]);
    });
    applied.push(m.id);
  }
  return applied;
}

/** Splits on semicolons at line ends; our migrations keep $$-bodies free of such lines. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter(Boolean);
}
