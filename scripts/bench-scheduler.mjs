// Scheduler tick benchmark (issue 10 budget: under 50 ms median): 10,000 schedules in PostgreSQL
// (100 agents × 100, every frequency), 100 of them due. One tick = one transaction that claims the
// due schedules (an indexed ORDER BY next_run_at LIMIT … FOR UPDATE SKIP LOCKED), starts their queued
// threads through the first-message path and moves their next_run_at on. Between runs the same 100 are made due again and their
// threads removed (not timed). Usage: node scripts/bench-scheduler.mjs — BENCH_DATABASE_URL or TEST_DATABASE_URL
// (default postgres://postgres@127.0.0.1:5432/test) names the PostgreSQL to use.
import { register } from 'node:module';

register('../test/setup/ts-loader.mjs', import.meta.url);

const { PG_URL, pgAvailable, throwawaySchema } = await import('./bench-server.mjs');
const { migrate } = await import('../server/migrations.ts');
const { LocalBus } = await import('../server/realtime/bus.ts');
const { Scheduler } = await import('../server/schedules/scheduler.ts');
const { benchResult } = await import('./bench-result.mjs');

const AGENTS = 100;
const PER_AGENT = 100;
const DUE = 100;
const RUNS = 15;

if (!(await pgAvailable())) {
  console.log(`scheduler tick: skipped, PostgreSQL at ${PG_URL} is unreachable`);
  process.exit(0);
}

const { db, drop } = await throwawaySchema();
try {
  await migrate(db);
  const now = new Date();
  const [{ id: owner }] = await db.query(`INSERT INTO users (email) VALUES ('bench-scheduler@example.test') RETURNING id`);
  await db.query(`INSERT INTO agents (owner_id, name) SELECT $1, 'Agent ' || g FROM generate_series(1, $2) g`, [owner, AGENTS]);
  // Four kinds in turn; everything runs tomorrow or later except one interval schedule per agent.
  await db.query(
    `INSERT INTO schedules (agent_id, frequency, schedule_time, weekdays, week_interval, day_of_month, interval_seconds, message, next_run_at)
     SELECT a.id, k.frequency, k.schedule_time, k.weekdays, k.week_interval, k.day_of_month, k.interval_seconds,
            'Scheduled work ' || a.id || '.' || s, $1::timestamptz + interval '1 day' + (s || ' minutes')::interval
     FROM agents a CROSS JOIN generate_series(1, $2) s
     JOIN (VALUES (0, 'daily', '09:00', NULL::int[], NULL::int, NULL::int, NULL::int),
                  (1, 'weekly', '10:30', ARRAY[0, 2, 4], 2, NULL, NULL),
                  (2, 'monthly', '06:00', NULL, NULL, 31, NULL),
                  (3, 'interval', NULL, NULL, NULL, NULL, 3600)) AS k(n, frequency, schedule_time, weekdays, week_interval, day_of_month, interval_seconds)
       ON k.n = s % 4`,
    [now, PER_AGENT]);
  const due = (await db.query(
    `SELECT DISTINCT ON (agent_id) id FROM schedules WHERE frequency = 'interval' ORDER BY agent_id, id LIMIT $1`, [DUE])).map((r) => r.id);
  await db.query('ANALYZE schedules');
  const [{ total }] = await db.query('SELECT count(*)::int AS total FROM schedules');

  const scheduler = new Scheduler({ db, bus: new LocalBus(), log: { info: () => {}, error: (m) => console.error(m) }, now: () => now });
  const times = [];
  for (let run = 0; run < RUNS + 2; run++) {
    await db.query('DELETE FROM threads');
    await db.query(`UPDATE schedules SET next_run_at = $2::timestamptz - interval '1 minute' WHERE id = ANY($1::int[])`, [due, now]);
    const began = performance.now();
    const fired = await scheduler.tick();
    const took = performance.now() - began;
    if (fired.length !== DUE) throw new Error(`expected ${DUE} schedules to fire, ${fired.length} did`);
    if (run >= 2) times.push(took); // the first two warm the pool and the plan cache
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const [plan] = await db.query(`EXPLAIN SELECT id FROM schedules WHERE next_run_at <= $1 ORDER BY next_run_at, id LIMIT 200 FOR UPDATE SKIP LOCKED`, [now]);
  console.log(`scheduler tick: ${total} schedules, ${DUE} due, ${RUNS} runs: median ${median.toFixed(1)} ms ` +
    `(min ${sorted[0].toFixed(1)}, max ${sorted.at(-1).toFixed(1)}); claim plan: ${plan['QUERY PLAN']}`);
  benchResult(`scheduler tick: ${total.toLocaleString('en')} schedules, ${DUE} due (median)`, median, 'ms', '< 50 ms');
} finally {
  await drop();
}
