// The Schedule rules (spec §3 "Schedule", §5 "Schedule"), shared by the browser and the server so both
// say the same thing: validation with the spec's messages, and the next run time. Everything is UTC:
// schedule_time is 'HH:MM' in UTC, weekdays are 0-6 Monday first, day_of_month is a UTC calendar day.
// Pure TypeScript, no DOM and no Node: the client bundle and the server import this one file.

export const FREQUENCIES = ['daily', 'weekly', 'monthly', 'interval'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** What a schedule says; the server adds id, agent_id, next_run, created_at and updated_at. */
export type ScheduleRule = {
  frequency: Frequency;
  /** 'HH:MM' in UTC; unused by interval. */
  schedule_time: string | null;
  /** 0-6, Monday first; weekly only. */
  weekdays: number[] | null;
  /** Every n-th week, counted from the week the schedule was created; weekly only. */
  week_interval: number | null;
  /** 1-31; a month shorter than that fires on its last day. */
  day_of_month: number | null;
  /** Seconds between runs; interval only. */
  interval: number | null;
  message: string;
};

export const MESSAGES = {
  interval: 'Interval (seconds) must be > 0',
  time: 'Time must be in HH:MM format',
  weekdays: 'Select at least one weekday',
  dayOfMonth: 'Day of month must be between 1 and 31',
  // Beyond the spec's four: a schedule without words would start a thread with nothing to do.
  message: 'Message is required',
} as const;

/** The form's defaults (spec §5): interval 60 s, day 1, every week. */
export const DEFAULTS = { interval: 60, day_of_month: 1, week_interval: 1 } as const;
export const MAX_INTERVAL_SECONDS = 2_147_483_647; // the column is a PostgreSQL integer
export const MAX_WEEK_INTERVAL = 52;
export const MAX_MESSAGE_LENGTH = 10_000;
export const WEEKDAY_LABELS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DAY_MS = 86_400_000;

export type RuleError = { field: keyof ScheduleRule; message: string };

/** The first broken rule, in the spec's order, or null when the schedule is valid. */
export function validateSchedule(rule: ScheduleRule): RuleError | null {
  if (rule.frequency === 'interval') {
    if (!isWhole(rule.interval) || rule.interval <= 0) return { field: 'interval', message: MESSAGES.interval };
    if (rule.interval > MAX_INTERVAL_SECONDS) return { field: 'interval', message: `Interval (seconds) must be at most ${MAX_INTERVAL_SECONDS}` };
  } else {
    if (typeof rule.schedule_time !== 'string' || !TIME.test(rule.schedule_time)) return { field: 'schedule_time', message: MESSAGES.time };
    if (rule.frequency === 'weekly') {
      const days = rule.weekdays;
      if (!Array.isArray(days) || days.length === 0) return { field: 'weekdays', message: MESSAGES.weekdays };
      if (!days.every((d) => isWhole(d) && d >= 0 && d <= 6)) return { field: 'weekdays', message: 'Weekdays are 0 (Monday) to 6 (Sunday)' };
      const every = rule.week_interval ?? DEFAULTS.week_interval;
      if (!isWhole(every) || every < 1 || every > MAX_WEEK_INTERVAL) {
        return { field: 'week_interval', message: `Week interval must be between 1 and ${MAX_WEEK_INTERVAL}` };
      }
    }
    if (rule.frequency === 'monthly') {
      const day = rule.day_of_month;
      if (!isWhole(day) || day < 1 || day > 31) return { field: 'day_of_month', message: MESSAGES.dayOfMonth };
    }
  }
  if (typeof rule.message !== 'string' || !rule.message.trim()) return { field: 'message', message: MESSAGES.message };
  if (rule.message.length > MAX_MESSAGE_LENGTH) return { field: 'message', message: `Message must be at most ${MAX_MESSAGE_LENGTH} characters` };
  return null;
}

/** Keeps only the fields the frequency uses (the others become null), with sorted unique weekdays. */
export function normalizeSchedule(rule: ScheduleRule): ScheduleRule {
  const f = rule.frequency;
  return {
    frequency: f,
    schedule_time: f === 'interval' ? null : rule.schedule_time,
    weekdays: f === 'weekly' ? [...new Set(rule.weekdays ?? [])].sort((a, b) => a - b) : null,
    week_interval: f === 'weekly' ? rule.week_interval ?? DEFAULTS.week_interval : null,
    day_of_month: f === 'monthly' ? rule.day_of_month : null,
    interval: f === 'interval' ? rule.interval : null,
    message: rule.message.trim(),
  };
}

/**
 * The first run strictly after `after`. `anchor` is where a cadence counts from: for interval the
 * previous due time (or the moment of saving), for weekly the schedule's creation (its week is
 * week 0 of every n-th week). Computing from `after` = now is what makes a missed slot fire once.
 */
export function nextRun(rule: ScheduleRule, after: Date, anchor: Date = after): Date {
  const t = after.getTime();
  if (rule.frequency === 'interval') {
    const step = rule.interval! * 1000;
    const base = anchor.getTime();
    if (base > t) return new Date(base);
    return new Date(base + (Math.floor((t - base) / step) + 1) * step);
  }
  const [h, m] = rule.schedule_time!.split(':').map(Number);
  const day0 = Math.floor(t / DAY_MS) * DAY_MS; // UTC midnight of `after`
  if (rule.frequency === 'daily') {
    const today = day0 + (h * 60 + m) * 60_000;
    return new Date(today > t ? today : today + DAY_MS);
  }
  if (rule.frequency === 'weekly') {
    const days = new Set(rule.weekdays);
    const every = rule.week_interval ?? 1;
    const anchorWeek = weekIndex(anchor.getTime());
    // Every n weeks plus one: some day in that span is a firing day.
    for (let i = 0; i <= 7 * every + 7; i++) {
      const day = day0 + i * DAY_MS;
      const at = day + (h * 60 + m) * 60_000;
      if (at <= t || !days.has(weekday(day))) continue;
      if (mod(weekIndex(day) - anchorWeek, every) === 0) return new Date(at);
    }
    throw new Error('unreachable: a weekly schedule without weekdays');
  }
  // monthly
  const start = new Date(day0);
  for (let i = 0; i < 3; i++) {
    const year = start.getUTCFullYear();
    const month = start.getUTCMonth() + i;
    const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
    const at = Date.UTC(year, month, Math.min(rule.day_of_month!, last), h, m);
    if (at > t) return new Date(at);
  }
  throw new Error('unreachable: a monthly schedule with no next month');
}

/** 0 = Monday … 6 = Sunday, of a UTC instant. */
export function weekday(ms: number): number {
  return (new Date(ms).getUTCDay() + 6) % 7;
}

/** Weeks since Monday 1970-01-05 (the first Monday of the epoch), in UTC. */
function weekIndex(ms: number): number {
  return Math.floor((ms - 4 * DAY_MS) / (7 * DAY_MS));
}

const mod = (a: number, n: number) => ((a % n) + n) % n;
const isWhole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

// --- local time ↔ UTC, for the form (schedule_time is shown in local time, spec §3)

/**
 * Local 'HH:MM' to UTC 'HH:MM' with today's offset (`on` in tests), and how many days the conversion
 * crosses (-1, 0 or 1), which moves weekdays with it: Monday 01:00 in UTC+2 is Sunday 23:00 UTC.
 */
export function localTimeToUtc(local: string, on: Date = new Date()): { time: string; dayShift: number } {
  const [h, m] = local.split(':').map(Number);
  const at = new Date(on.getFullYear(), on.getMonth(), on.getDate(), h, m);
  const utcDay = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const localDay = Date.UTC(at.getFullYear(), at.getMonth(), at.getDate());
  const shift = Math.round((utcDay - localDay) / DAY_MS);
  return { time: `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}`, dayShift: shift };
}

/** UTC 'HH:MM' to local 'HH:MM' with today's offset, and the day shift (see localTimeToUtc). */
export function utcTimeToLocal(utc: string, on: Date = new Date()): { time: string; dayShift: number } {
  const [h, m] = utc.split(':').map(Number);
  const at = new Date(Date.UTC(on.getUTCFullYear(), on.getUTCMonth(), on.getUTCDate(), h, m));
  const localDay = Date.UTC(at.getFullYear(), at.getMonth(), at.getDate());
  const utcDay = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const shift = Math.round((localDay - utcDay) / DAY_MS);
  return { time: `${pad(at.getHours())}:${pad(at.getMinutes())}`, dayShift: shift };
}

/** Moves weekdays by a day shift, wrapping Sunday ↔ Monday; sorted. */
export function shiftWeekdays(days: number[], shift: number): number[] {
  return [...new Set(days.map((d) => mod(d + shift, 7)))].sort((a, b) => a - b);
}

const pad = (n: number) => String(n).padStart(2, '0');
