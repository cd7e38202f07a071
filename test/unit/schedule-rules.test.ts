import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  localTimeToUtc, MESSAGES, nextRun, normalizeSchedule, shiftWeekdays, utcTimeToLocal, validateSchedule, type ScheduleRule,
} from '../../src/lib/schedule-rules.ts';

const base: ScheduleRule = {
  frequency: 'daily', schedule_time: '09:00', weekdays: null, week_interval: null, day_of_month: null, interval: null,
  message: 'Check the inbox',
};
const rule = (over: Partial<ScheduleRule>): ScheduleRule => ({ ...base, ...over });
const at = (iso: string) => new Date(iso);
const next = (r: Partial<ScheduleRule>, after: string, anchor?: string) =>
  nextRun(rule(r), at(after), anchor ? at(anchor) : undefined).toISOString();

// ---
const validation = suite('schedule rules: validation with the spec messages');

validation('interval needs seconds > 0', () => {
  for (const interval of [0, -5, null, 1.5, '60' as unknown as number]) {
    assert.equal(validateSchedule(rule({ frequency: 'interval', interval, schedule_time: null })),
      { field: 'interval', message: 'Interval (seconds) must be > 0' }, String(interval));
  }
  assert.is(validateSchedule(rule({ frequency: 'interval', interval: 1, schedule_time: 'junk' })), null, 'interval ignores the time');
});

validation('the other frequencies need HH:MM', () => {
  for (const frequency of ['daily', 'weekly', 'monthly'] as const) {
    for (const schedule_time of ['', '9:00', '24:00', '12:60', '12:00:00', null, 'noon']) {
      assert.is(validateSchedule(rule({ frequency, schedule_time, weekdays: [0], day_of_month: 1 }))?.message, MESSAGES.time, `${frequency} ${schedule_time}`);
    }
  }
  assert.is(validateSchedule(rule({ schedule_time: '00:00' })), null);
  assert.is(validateSchedule(rule({ schedule_time: '23:59' })), null);
  assert.is(MESSAGES.time, 'Time must be in HH:MM format');
});

validation('weekly needs a weekday; monthly needs a day 1-31', () => {
  assert.is(validateSchedule(rule({ frequency: 'weekly', weekdays: [] }))?.message, 'Select at least one weekday');
  assert.is(validateSchedule(rule({ frequency: 'weekly', weekdays: null }))?.message, 'Select at least one weekday');
  assert.is(validateSchedule(rule({ frequency: 'weekly', weekdays: [7] }))?.field, 'weekdays');
  assert.is(validateSchedule(rule({ frequency: 'weekly', weekdays: [0, 6], week_interval: 0 }))?.field, 'week_interval');
  assert.is(validateSchedule(rule({ frequency: 'weekly', weekdays: [0, 6], week_interval: 2 })), null);
  for (const day_of_month of [0, 32, null, 2.5]) {
    assert.is(validateSchedule(rule({ frequency: 'monthly', day_of_month }))?.message, 'Day of month must be between 1 and 31', String(day_of_month));
  }
  assert.is(validateSchedule(rule({ frequency: 'monthly', day_of_month: 31 })), null);
});

validation('a message is required; normalising keeps only what the frequency uses', () => {
  assert.is(validateSchedule(rule({ message: '   ' }))?.field, 'message');
  assert.equal(normalizeSchedule(rule({ frequency: 'weekly', weekdays: [4, 0, 4], week_interval: null, interval: 60, day_of_month: 3, message: ' hi ' })), {
    frequency: 'weekly', schedule_time: '09:00', weekdays: [0, 4], week_interval: 1, day_of_month: null, interval: null, message: 'hi',
  });
  assert.equal(normalizeSchedule(rule({ frequency: 'interval', interval: 90, weekdays: [1] })).schedule_time, null);
});

// ---
const daily = suite('schedule rules: next run, daily and interval (UTC)');

daily('later today, else tomorrow, never the instant itself', () => {
  assert.is(next({}, '2025-03-10T08:59:59Z'), '2025-03-10T09:00:00.000Z');
  assert.is(next({}, '2025-03-10T09:00:00Z'), '2025-03-11T09:00:00.000Z');
  assert.is(next({}, '2025-12-31T23:00:00Z'), '2026-01-01T09:00:00.000Z');
  assert.is(next({ schedule_time: '00:00' }, '2024-02-28T12:00:00Z'), '2024-02-29T00:00:00.000Z', 'leap day');
});

daily('interval keeps its phase and skips missed slots (one catch-up, not one per slot)', () => {
  const r = { frequency: 'interval' as const, interval: 60, schedule_time: null };
  assert.is(next(r, '2025-01-01T00:00:00Z'), '2025-01-01T00:01:00.000Z', 'from a save: now + interval');
  assert.is(next(r, '2025-01-01T00:01:05Z', '2025-01-01T00:01:00Z'), '2025-01-01T00:02:00.000Z', 'fired 5 s late: no drift');
  assert.is(next(r, '2025-01-01T05:00:30Z', '2025-01-01T00:01:00Z'), '2025-01-01T05:01:00.000Z', 'hours down: the next slot after now');
  assert.is(next({ ...r, interval: 86_400 * 366 }, '2024-01-01T00:00:00Z'), '2025-01-01T00:00:00.000Z');
});

// ---
const weekly = suite('schedule rules: next run, weekly');

weekly('weekdays are Monday first (0 = Mon … 6 = Sun)', () => {
  // 2025-03-10 is a Monday.
  assert.is(next({ frequency: 'weekly', weekdays: [0] }, '2025-03-10T08:00:00Z'), '2025-03-10T09:00:00.000Z');
  assert.is(next({ frequency: 'weekly', weekdays: [0] }, '2025-03-10T10:00:00Z'), '2025-03-17T09:00:00.000Z');
  assert.is(next({ frequency: 'weekly', weekdays: [6] }, '2025-03-10T10:00:00Z'), '2025-03-16T09:00:00.000Z', 'Sunday');
  assert.is(next({ frequency: 'weekly', weekdays: [2, 4] }, '2025-03-12T09:00:00Z'), '2025-03-14T09:00:00.000Z', 'Wed done, then Fri');
});

weekly('every n-th week counts from the week of creation', () => {
  const r = { frequency: 'weekly' as const, weekdays: [0, 3], week_interval: 2 };
  const created = '2025-03-11T12:00:00Z'; // a Tuesday: this week is week 0
  assert.is(next(r, created, created), '2025-03-13T09:00:00.000Z', 'Thursday of the same week');
  assert.is(next(r, '2025-03-13T09:00:00Z', created), '2025-03-24T09:00:00.000Z', 'then Monday two weeks on');
  assert.is(next(r, '2025-03-24T09:00:00Z', created), '2025-03-27T09:00:00.000Z');
  assert.is(next({ ...r, week_interval: 3, weekdays: [6] }, '2025-03-16T09:00:00Z', created), '2025-04-06T09:00:00.000Z', 'three weeks, Sunday');
  assert.is(next({ ...r, week_interval: 2, weekdays: [0] }, '2025-12-29T10:00:00Z', '2025-12-29T08:00:00Z'), '2026-01-12T09:00:00.000Z', 'across the new year');
});

// ---
const monthly = suite('schedule rules: next run, monthly');

monthly('a short month fires on its last day', () => {
  const r = { frequency: 'monthly' as const, day_of_month: 31 };
  assert.is(next(r, '2025-01-31T10:00:00Z'), '2025-02-28T09:00:00.000Z');
  assert.is(next(r, '2025-02-28T09:00:00Z'), '2025-03-31T09:00:00.000Z', 'back to the 31st after');
  assert.is(next(r, '2025-04-01T00:00:00Z'), '2025-04-30T09:00:00.000Z', 'April has 30');
  assert.is(next({ ...r, day_of_month: 30 }, '2025-02-01T00:00:00Z'), '2025-02-28T09:00:00.000Z');
});

monthly('leap years: Feb 29 in 2024 and 2000, not in 2025 or 2100', () => {
  const r = { frequency: 'monthly' as const, day_of_month: 29 };
  assert.is(next(r, '2024-02-01T00:00:00Z'), '2024-02-29T09:00:00.000Z');
  assert.is(next(r, '2025-02-01T00:00:00Z'), '2025-02-28T09:00:00.000Z');
  assert.is(next(r, '2000-02-01T00:00:00Z'), '2000-02-29T09:00:00.000Z');
  assert.is(next(r, '2100-02-01T00:00:00Z'), '2100-02-28T09:00:00.000Z');
  assert.is(next({ ...r, day_of_month: 31 }, '2024-02-29T09:00:00Z'), '2024-03-31T09:00:00.000Z');
});

monthly('this month when still ahead, across the year end otherwise', () => {
  assert.is(next({ frequency: 'monthly', day_of_month: 15 }, '2025-03-15T08:00:00Z'), '2025-03-15T09:00:00.000Z');
  assert.is(next({ frequency: 'monthly', day_of_month: 15 }, '2025-12-15T09:00:00Z'), '2026-01-15T09:00:00.000Z');
  assert.is(next({ frequency: 'monthly', day_of_month: 1, schedule_time: '00:00' }, '2025-12-31T23:59:59Z'), '2026-01-01T00:00:00.000Z');
});

// ---
const local = suite('schedule rules: local time ↔ UTC');
const savedTz = process.env.TZ;
local.after(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

local('times convert with the day they cross, and weekdays move with them', () => {
  process.env.TZ = 'Asia/Kolkata'; // UTC+05:30, no daylight saving
  const day = new Date('2025-03-10T12:00:00Z');
  assert.equal(localTimeToUtc('09:00', day), { time: '03:30', dayShift: 0 });
  assert.equal(localTimeToUtc('01:00', day), { time: '19:30', dayShift: -1 });
  assert.equal(utcTimeToLocal('19:30', day), { time: '01:00', dayShift: 1 });
  assert.equal(utcTimeToLocal('03:30', day), { time: '09:00', dayShift: 0 });
  process.env.TZ = 'America/Los_Angeles'; // UTC-7 in summer
  const summer = new Date('2025-07-01T12:00:00Z');
  assert.equal(localTimeToUtc('20:15', summer), { time: '03:15', dayShift: 1 });
  assert.equal(utcTimeToLocal('03:15', summer), { time: '20:15', dayShift: -1 });
  assert.equal(shiftWeekdays([0, 6], -1), [5, 6], 'Mon → Sun, Sun → Sat');
  assert.equal(shiftWeekdays([6], 1), [0], 'Sun → Mon');
});

validation.run();
daily.run();
weekly.run();
monthly.run();
local.run();
