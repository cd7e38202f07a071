// PGlite runs no autovacuum: every UPDATE and DELETE leaves a dead row behind, and the hot tables (agents, threads,
// spend reservations) grew tens of dead rows per live one within minutes (issue 43). Nor does it analyze: a table
// that only grows (audit_events) kept the statistics of its first rows, and the planner, thinking it small, sorted
// every matching row for each 1,000-row page of an export (100,000 events: 100 s instead of 2). So this process does
// both itself, on a timer and never inside a request, choosing tables as autovacuum would: VACUUM (ANALYZE) past
// 50 dead rows plus a fifth of the live ones, ANALYZE past 50 changed rows plus a tenth. PostgreSQL does this on its
// own; this is for the embedded engine only.
import type { Db } from './types.ts';

export const VACUUM_EVERY_MS = 5 * 60_000;

type TableStats = { table: string; live: number; dead: number; changed: number };

/** Each table's counts, from the statistics (flushed first: PGlite keeps them pending otherwise). */
async function tableStats(db: Db): Promise<TableStats[]> {
  await db.query('SELECT pg_stat_force_next_flush()');
  return db.query<TableStats>(
    `SELECT relname AS table, n_live_tup::int AS live, n_dead_tup::int AS dead, n_mod_since_analyze::int AS changed
     FROM pg_stat_user_tables WHERE schemaname = current_schema() ORDER BY n_dead_tup DESC`);
}

const overVacuum = (t: TableStats) => t.dead > 50 + 0.2 * t.live;
const overAnalyze = (t: TableStats) => t.changed > 50 + 0.1 * t.live;

/** The tables over autovacuum's threshold. */
export async function tablesToVacuum(db: Db): Promise<TableStats[]> {
  return (await tableStats(db)).filter(overVacuum);
}

/** One round: VACUUM (ANALYZE) each table over the vacuum threshold, ANALYZE those only over the analyze one; the tables done. */
export async function vacuumRound(db: Db): Promise<string[]> {
  const done: string[] = [];
  for (const t of await tableStats(db)) {
    if (!overVacuum(t) && !overAnalyze(t)) continue;
    // The name comes from the catalogue of our own schema; quoted all the same.
    await db.query(`${overVacuum(t) ? 'VACUUM (ANALYZE)' : 'ANALYZE'} "${t.table.replace(/"/g, '""')}"`);
    done.push(t.table);
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
