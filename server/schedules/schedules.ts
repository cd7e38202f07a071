// Schedules (spec §3 "Schedule") and the scheduler's one query: firing a batch of due schedules,
// which claims their rows (FOR UPDATE SKIP LOCKED), starts their threads through the same path as a
// user's first message and moves next_run_at on, all in one transaction: exactly once per due time
// however many server instances tick. The rules themselves live in src/lib/schedule-rules.ts.
import type { Db, Queryable } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import { nextRun, type ScheduleRule } from '../../src/lib/schedule-rules.ts';
import { announceNewThreads, insertNewThreads } from '../threads/threads.ts';

export type Schedule = ScheduleRule & {
  id: number;
  agent_id: number;
  next_run: string;
  last_run: string | null;
  created_at: string;
  updated_at: string;
};

const COLUMNS = `id, agent_id, frequency, schedule_time, weekdays, week_interval, day_of_month,
  interval_seconds AS interval, message, next_run_at, last_run_at, created_at, updated_at`;

type Row = ScheduleRule & { id: number; agent_id: number; next_run_at: Date; last_run_at: Date | null; created_at: Date; updated_at: Date };

function present(row: Row): Schedule {
  const { next_run_at, last_run_at, created_at, updated_at, ...rest } = row;
  return {
    ...rest,
    next_run: iso(next_run_at),
    last_run: last_run_at && iso(last_run_at),
    created_at: iso(created_at),
    updated_at: iso(updated_at),
  };
}

const iso = (d: Date | string) => new Date(d).toISOString();

export async function listSchedules(db: Queryable, agentId: number): Promise<Schedule[]> {
  const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM schedules WHERE agent_id = $1 ORDER BY id`, [agentId]);
  return rows.map(present);
}

/** The schedule's agent, for the ownership check; null when there is no such schedule. */
export async function scheduleAgentId(db: Queryable, id: number): Promise<number | null> {
  const [row] = await db.query<{ agent_id: number }>('SELECT agent_id FROM schedules WHERE id = $1', [id]);
  return row?.agent_id ?? null;
}

/** Stores a (validated, normalised) rule; the first run is the next slot after `now`. */
export async function createSchedule(db: Queryable, agentId: number, rule: ScheduleRule, now = new Date()): Promise<Schedule> {
  const [row] = await db.query<Row>(
    `INSERT INTO schedules (agent_id, frequency, schedule_time, weekdays, week_interval, day_of_month, interval_seconds, message,
       next_run_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING ${COLUMNS}`,
    [agentId, ...ruleParams(rule), nextRun(rule, now, now), now]);
  return present(row);
}

/** Replaces the rule; the next run is computed afresh (weekly cadences still count from creation). */
export async function updateSchedule(
  db: Db, id: number, rule: ScheduleRule, now = new Date(), audit?: (q: Queryable, from: Schedule, to: Schedule) => Promise<unknown>,
): Promise<Schedule | null> {
  return db.tx(async (q) => {
    const [current] = await q.query<Row>(`SELECT ${COLUMNS} FROM schedules WHERE id = $1 FOR UPDATE`, [id]);
    if (!current) return null;
    const [row] = await q.query<Row>(
      `UPDATE schedules SET frequency = $2, schedule_time = $3, weekdays = $4, week_interval = $5, day_of_month = $6,
         interval_seconds = $7, message = $8, next_run_at = $9, updated_at = $10 WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, ...ruleParams(rule), nextRun(rule, now, anchorOf(rule, new Date(current.created_at), now)), now]);
    await audit?.(q, present(current), present(row));
    return present(row);
  });
}

export async function deleteSchedule(db: Queryable, id: number): Promise<boolean> {
  return (await db.query('DELETE FROM schedules WHERE id = $1 RETURNING id', [id])).length > 0;
}

function ruleParams(rule: ScheduleRule): unknown[] {
  return [rule.frequency, rule.schedule_time, rule.weekdays, rule.week_interval, rule.day_of_month, rule.interval, rule.message];
}

/** Where the cadence counts from: weekly from creation, interval from `due` (the slot that fired, or now). */
function anchorOf(rule: ScheduleRule, createdAt: Date, due: Date): Date {
  return rule.frequency === 'weekly' ? createdAt : due;
}

// --- the scheduler

export type Fired = { scheduleId: number; agentId: number; threadId: number; due: Date; next: Date };

/**
 * Fires due schedules, all in one transaction: claims their rows (FOR UPDATE SKIP LOCKED: one another
 * instance holds is left to it, one it has fired is no longer due), starts their threads through the
 * first-message path and moves their next runs on. `pick`: the ids to fire if still due, or how many
 * of the earliest due to take. `claimed` hears the ids taken, before anything else can fail. The next
 * run is computed from `now`, so a schedule that missed several slots while the server was down fires
 * once, not once per slot.
 */
export async function fireSchedules(db: Db, bus: Bus, pick: number[] | number, now: Date, claimed?: (ids: number[]) => void): Promise<Fired[]> {
  const { fired, created } = await db.tx(async (q) => {
    const rows = await q.query<Row>(
      `SELECT ${COLUMNS} FROM schedules WHERE ${typeof pick === 'number' ? 'true' : 'id = ANY($3::int[])'} AND next_run_at <= $2
       ORDER BY next_run_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      typeof pick === 'number' ? [pick, now] : [pick.length, now, pick]);
    claimed?.(rows.map((row) => row.id));
    if (!rows.length) return { fired: [], created: [] };
    const created = await insertNewThreads(q, rows.map((row) => ({ agentId: row.agent_id, text: row.message, files: [] })));
    const fired = rows.map((row, i): Fired => {
      const due = new Date(row.next_run_at);
      // Interval cadences keep their phase (due + k·interval); the others are wall-clock slots.
      const next = nextRun(row, now, anchorOf(row, new Date(row.created_at), due));
      return { scheduleId: row.id, agentId: row.agent_id, threadId: created[i].threadId, due, next };
    });
    await q.query(
      `UPDATE schedules s SET next_run_at = f.next, last_run_at = $3 FROM unnest($1::int[], $2::timestamptz[]) AS f(id, next) WHERE s.id = f.id`,
      [fired.map((f) => f.scheduleId), fired.map((f) => f.next.toISOString()), now]);
    return { fired, created };
  });
  announceNewThreads(bus, created);
  return fired;
}
