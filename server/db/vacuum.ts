// PGlite runs no autovacuum: every UPDATE and DELETE leaves a dead row behind, and the hot tables (agents, threads,
// spend reservations) grew tens of dead rows per live one within minutes (issue 43). So this process vacuums them
// itself, on a timer and never inside a request, choosing tables as autovacuum would: more dead rows than 50 plus a
// fifth of the live ones. PostgreSQL vacuums on its own; this is for the embedded engine only.
import type { Db } from './types.ts';

export const VACUUM_EVERY_MS = 5 * 60_000;

type TableStats = { table: string; live: number; dead: number };

/** The tables over autovacuum's threshold, from the statistics (flushed first: PGlite keeps them pending otherwise). */
export async function tablesToVacuum(db: Db): Promise<TableStats[]> {
  await db.query('SELECT pg_stat_force_next_flush()');
  const tables = await db.query<TableStats>(
    `SELECT relname AS table, n_live_tup::int AS live, n_dead_tup::int AS dead FROM pg_stat_user_tables
     WHERE schemaname = current_schema() ORDER BY n_dead_tup DESC`);
  return tables.filter((t) => t.dead > 50 + 0.2 * t.live);
}

/** One round: VACUUM (ANALYZE) each table over the threshold; the tables vacuumed. */
export async function vacuumRound(db: Db): Promise<string[]> {
  const done: string[] = [];
  for (const { table } of await tablesToVacuum(db)) {
    // The name comes from the catalogue of our own schema; quoted all the same.
    await db.query(`VACUUM (ANALYZE) "${table.replace(/"/g, '""')}"`);
    done.push(table);
  }
  return done;
}

/** Vacuums on a timer until stopped (the returned function, which waits for a round under way); nothing on PostgreSQL. */
export function vacuumOnSchedule(db: Db, onError: (message: string) => void, everyMs = VACUUM_EVERY_MS): () => Promise<void> {
  if (db.engine !== 'pglite') return async () => {};
  let round: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    round = vacuumRound(db).catch((err) => onError(`vacuum failed: ${(err as Error).message}`));
  }, everyMs).unref();
  return async () => {
    clearInterval(timer);
    await round;
  };
}
