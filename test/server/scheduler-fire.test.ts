// The scheduler: a due schedule starts a queued thread exactly like a user's first message, a
// downtime is caught up once, and two instances on one PostgreSQL fire each due time exactly once.
// The two-instance part runs on the machine's PostgreSQL (TEST_DATABASE_URL, else the local
// default) in a throwaway schema; it is skipped, saying so, only when that server is unreachable.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openDb, type Db } from '../../server/db/db.ts';
import { migrate } from '../../server/migrations.ts';
import { LocalBus } from '../../server/realtime/bus.ts';
import { createSchedule } from '../../server/schedules/schedules.ts';
import { Scheduler } from '../../server/schedules/scheduler.ts';
import { normalizeSchedule, type ScheduleRule } from '../../src/lib/schedule-rules.ts';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';
import { TOPICS } from '../../server/realtime/topics.ts';

const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };
const HOUR = 3_600_000;

async function serverScheduler(now: () => Date) {
  const server = await testServer();
  await server.parts.scheduler?.stop(); // the tests drive ticks themselves
  const { db, bus } = server.parts;
  return { db, bus, scheduler: new Scheduler({ db, bus, log: quiet, now }) };
}

async function threadsOf(db: Db, agentId: number) {
  return db.query<{ id: number; name: string; schedule_sequence: number | null; user_text: string }>(
    `SELECT t.id, t.name, t.schedule_sequence, s.user_text FROM threads t JOIN thread_steps s ON s.thread_id = t.id AND s.sequence = 1
     WHERE t.agent_id = $1 ORDER BY t.id`, [agentId]);
}

// ---
const fire = suite('scheduler: firing');

fire("a due schedule starts a queued thread the way a user's first message does", async () => {
  let clock = new Date();
  const { db, bus, scheduler } = await serverScheduler(() => clock);
  const user = await newUser('fire');
  const agent = await newAgent(user.id);
  const admin = await adminToken();
  // A thread the user started by hand is already queued: the scheduled one goes behind it.
  await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'By hand' } });
  const created = (await call(`/api/scheduler/${agent.id}`, {
    token: admin, body: { frequency: 'interval', interval: 3600, message: 'Check the shared inbox\nand summarise it' },
  })).body;
  const wakes: unknown[] = [];
  const offWake = bus.subscribe(TOPICS.runnerWake, (m) => wakes.push(m));
  // What a listener reads on another connection the moment it hears of the message: the committed thread.
  const seen: Promise<number>[] = [];
  const offChat = bus.subscribe(TOPICS.agentMessages(agent.id), (m: any) =>
    seen.push(db.query<{ n: number }>('SELECT count(*)::int AS n FROM thread_steps WHERE thread_id = $1', [m.message.thread_id]).then(([r]) => r.n)));
  const off = () => (offWake(), offChat());

  // Other tests' schedules share the database: look at this agent's only.
  const tick = async () => (await scheduler.tick()).filter((f) => f.agentId === agent.id);
  assert.equal(await tick(), [], 'not due yet');
  clock = new Date(Date.parse(created.next_run) + 1000);
  const [fired, ...rest] = await tick();
  off();
  assert.is(rest.length, 0);
  assert.is(fired.scheduleId, created.id);
  const threads = await threadsOf(db, agent.id);
  assert.is(threads.length, 2);
  const thread = threads[1];
  assert.is(thread.id, fired.threadId);
  assert.is(thread.user_text, 'Check the shared inbox\nand summarise it');
  assert.is(thread.name, 'Check the shared inbox', 'named after its first line, like a chat message');
  assert.equal(threads.map((t) => t.schedule_sequence), [1, 2], 'queued behind the earlier thread');
  // (Other agents' wakes may arrive late through PostgreSQL's NOTIFY.)
  assert.equal(wakes.filter((w: any) => w.agent_id === agent.id), [{ agent_id: agent.id }], 'the runner is woken');
  const messages = (await call(`/api/messages/agent/${agent.id}`, { token: user.token })).body.messages;
  assert.ok(messages.some((m: any) => m.role === 'user' && m.user_data.text === thread.user_text), 'the chat shows the message');
  assert.equal(await Promise.all(seen), [1], 'the chat hears of it once, after the commit');
  const [{ next_run_at }] = await db.query('SELECT next_run_at FROM schedules WHERE id = $1', [created.id]);
  assert.is(new Date(next_run_at).getTime(), Date.parse(created.next_run) + HOUR, 'the next slot, in phase');
  assert.equal(await tick(), [], 'fired once');
});

fire('after a downtime a schedule catches up once, and its next run is computed from now', async () => {
  const clock = new Date('2030-06-15T12:00:00Z');
  const { db, scheduler } = await serverScheduler(() => clock);
  const user = await newUser('catchup');
  const agent = await newAgent(user.id);
  const admin = await adminToken();
  const daily = (await call(`/api/scheduler/${agent.id}`, { token: admin, body: { frequency: 'daily', schedule_time: '09:00', message: 'Daily' } })).body;
  const every = (await call(`/api/scheduler/${agent.id}`, { token: admin, body: { frequency: 'interval', interval: 600, message: 'Every 10 minutes' } })).body;
  // The server was down for three days: the stored next runs are long past.
  await db.query(`UPDATE schedules SET next_run_at = '2030-06-12T09:00:00Z' WHERE id = $1`, [daily.id]);
  await db.query(`UPDATE schedules SET next_run_at = '2030-06-12T09:05:00Z' WHERE id = $1`, [every.id]);

  const fired = (await scheduler.tick()).filter((f) => f.agentId === agent.id); // other tests' schedules are due in 2030 too
  assert.equal(fired.map((f) => f.scheduleId).sort(), [daily.id, every.id].sort());
  assert.is((await threadsOf(db, agent.id)).length, 2, 'one thread each, not one per missed slot');
  const rows = await db.query('SELECT id, next_run_at FROM schedules WHERE agent_id = $1', [agent.id]);
  const next = new Map(rows.map((r) => [r.id, new Date(r.next_run_at).toISOString()]));
  assert.is(next.get(daily.id), '2030-06-16T09:00:00.000Z', 'tomorrow at 09:00');
  assert.is(next.get(every.id), '2030-06-15T12:05:00.000Z', 'the next 10-minute slot after now, in phase with 09:05');
  assert.equal((await scheduler.tick()).filter((f) => f.agentId === agent.id), []);
  assert.is((await threadsOf(db, agent.id)).length, 2);
});

fire('a schedule that cannot fire holds back no other: the rest fire, it stays due for the next tick', async () => {
  const clock = new Date(Date.now() + 3 * HOUR);
  const { db, scheduler } = await serverScheduler(() => clock);
  const user = await newUser('poison');
  const agent = await newAgent(user.id);
  const admin = await adminToken();
  const ids: number[] = [];
  for (const message of ['First', 'Refused', 'Last']) {
    ids.push((await call(`/api/scheduler/${agent.id}`, { token: admin, body: { frequency: 'interval', interval: 60, message } })).body.id);
  }
  // A database that refuses one schedule's words, as a broken row would.
  await db.query(`CREATE FUNCTION refuse_words() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.user_text = 'Refused' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`);
  await db.query('CREATE TRIGGER refuse_words BEFORE INSERT ON thread_steps FOR EACH ROW EXECUTE FUNCTION refuse_words()');
  try {
    const fired = (await scheduler.tick()).filter((f) => f.agentId === agent.id);
    assert.equal(fired.map((f) => f.scheduleId), [ids[0], ids[2]]);
    assert.equal((await threadsOf(db, agent.id)).map((t) => [t.user_text, t.schedule_sequence]), [['First', 1], ['Last', 2]]);
    const [{ due }] = await db.query('SELECT next_run_at <= $2 AS due FROM schedules WHERE id = $1', [ids[1], clock]);
    assert.ok(due, 'still due');
  } finally {
    await db.query('DROP TRIGGER refuse_words ON thread_steps');
    await db.query('DROP FUNCTION refuse_words()');
  }
  const again = (await scheduler.tick()).filter((f) => f.agentId === agent.id);
  assert.equal(again.map((f) => f.scheduleId), [ids[1]], 'fires on the next tick');
});

fire('a schedule whose agent was deleted in between is gone, and a tick never fails on it', async () => {
  const clock = new Date(Date.now() + 2 * HOUR);
  const { scheduler } = await serverScheduler(() => clock);
  const user = await newUser('gone');
  const agent = await newAgent(user.id);
  const admin = await adminToken();
  await call(`/api/scheduler/${agent.id}`, { token: admin, body: { frequency: 'interval', interval: 60, message: 'x' } });
  await call(`/api/agents/${agent.id}`, { method: 'DELETE', token: admin });
  const fired = await scheduler.tick();
  assert.ok(fired.every((f) => f.agentId !== agent.id));
});

fire.run();

// ---
const pgUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const race = suite('scheduler: two instances on one PostgreSQL');
const cleanups: (() => Promise<void>)[] = [];
race.after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

/** A fresh schema on the machine's PostgreSQL, or null (with a note) when it cannot be reached. */
async function pgSchema(): Promise<{ url: string; schema: string } | null> {
  let admin: Db;
  try {
    admin = await openDb({ databaseUrl: pgUrl });
    await admin.query('SELECT 1');
  } catch (err) {
    console.log(`    (skipped: PostgreSQL at ${pgUrl} is unreachable: ${(err as Error).message})`);
    return null;
  }
  const schema = `sched_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  cleanups.push(async () => {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.close();
  });
  return { url: pgUrl, schema };
}

race('every due schedule fires exactly once while two instances tick at the same time', async () => {
  const target = await pgSchema();
  if (!target) return;
  // Two pools, as two servers would have.
  const one = await openDb({ databaseUrl: target.url, schema: target.schema });
  const two = await openDb({ databaseUrl: target.url, schema: target.schema });
  cleanups.push(() => one.close(), () => two.close());
  await migrate(one);
  const [{ id: ownerId }] = await one.query<{ id: number }>(`INSERT INTO users (email, role) VALUES ('race@example.test', 'user') RETURNING id`);
  const agentIds: number[] = [];
  for (let a = 0; a < 4; a++) {
    agentIds.push((await one.query<{ id: number }>('INSERT INTO agents (owner_id, name) VALUES ($1, $2) RETURNING id', [ownerId, `Racer ${a}`]))[0].id);
  }
  const t0 = new Date('2031-01-06T10:00:00Z');
  const kinds: Partial<ScheduleRule>[] = [
    { frequency: 'daily', schedule_time: '09:00' },
    { frequency: 'weekly', schedule_time: '09:30', weekdays: [0, 2], week_interval: 1 },
    { frequency: 'monthly', schedule_time: '08:00', day_of_month: 6 },
    { frequency: 'interval', interval: 900 },
  ];
  const scheduleIds: number[] = [];
  for (let i = 0; i < 60; i++) {
    const rule = normalizeSchedule({
      schedule_time: null, weekdays: null, week_interval: null, day_of_month: null, interval: null, ...kinds[i % 4], message: `race ${i}`,
    } as ScheduleRule);
    // Saved a day earlier: each one's first run is now due.
    scheduleIds.push((await createSchedule(one, agentIds[i % agentIds.length], rule, new Date(t0.getTime() - 24 * HOUR + 60_000))).id);
  }
  const [{ due }] = await one.query<{ due: number }>('SELECT count(*)::int AS due FROM schedules WHERE next_run_at <= $1', [t0]);
  assert.is(due, 60, 'all due');

  const bus = new LocalBus();
  // Small batches and three schedulers on each pool, so that they interleave on the same rows.
  const pools = [one, one, one, two, two, two];
  const instances = pools.map((db) => new Scheduler({ db, bus, log: quiet, now: () => t0, batch: 7 }));
  const results = (await Promise.all(instances.map((s) => s.tick()))).map((r) => r.length);
  const rounds = await Promise.all(instances.map((s) => s.tick()));
  assert.ok(rounds.every((r) => r.length === 0), `nothing left due: first ${results.join(',')}, then ${rounds.map((r) => r.length).join(',')}`);

  const rows = await one.query<{ user_text: string; n: number }>(
    `SELECT s.user_text, count(*)::int AS n FROM thread_steps s JOIN threads t ON t.id = s.thread_id GROUP BY s.user_text ORDER BY s.user_text`);
  assert.is(rows.length, 60, 'one thread per schedule');
  assert.ok(rows.every((r) => r.n === 1), `no schedule fired twice: ${JSON.stringify(rows.filter((r) => r.n !== 1))}`);
  const byPool = [one, two].map((db) => results.filter((_, i) => pools[i] === db).reduce((a, b) => a + b, 0));
  console.log(`    (fired through pool one: ${byPool[0]}, through pool two: ${byPool[1]}; per scheduler ${results.join(', ')})`);
  assert.is(byPool[0] + byPool[1], 60);
  const queues = await one.query<{ agent_id: number; seqs: number[] }>(
    'SELECT agent_id, array_agg(schedule_sequence ORDER BY schedule_sequence) AS seqs FROM threads GROUP BY agent_id');
  for (const q of queues) assert.equal(q.seqs, Array.from({ length: 15 }, (_, i) => i + 1), `agent ${q.agent_id}: queue 1..15 without gaps`);
  const [{ late }] = await one.query<{ late: number }>('SELECT count(*)::int AS late FROM schedules WHERE next_run_at <= $1 OR last_run_at IS NULL', [t0]);
  assert.is(late, 0, 'every next run moved past now');
});

race.run();
