// The Schedules modal's form (spec §5 "Schedule"): what a row holds while it is edited, in local
// time, and its conversion to the stored rule in UTC and back. A time that crosses midnight moves
// the weekdays with it; day_of_month stays a UTC calendar day (see README "How schedules run").
import {
  DEFAULTS, localTimeToUtc, normalizeSchedule, shiftWeekdays, utcTimeToLocal, validateSchedule,
  WEEKDAY_LABELS, type Frequency, type ScheduleRule,
} from '../../../lib/schedule-rules.ts';

/** Number inputs stay text while typed, so an emptied field is a validation message, not a 0. */
export type ScheduleDraft = {
  frequency: Frequency;
  /** Local 'HH:MM' ('' when cleared). */
  time: string;
  /** Local weekdays, 0 = Monday. */
  weekdays: number[];
  weekInterval: string;
  dayOfMonth: string;
  interval: string;
  message: string;
};

export const FREQUENCY_LABELS: Record<Frequency, string> = { daily: 'Daily', weekly: 'Weekly', monthly: 'Monthly', interval: 'Interval' };

export function newDraft(): ScheduleDraft {
  return {
    frequency: 'daily', time: '09:00', weekdays: [], weekInterval: String(DEFAULTS.week_interval),
    dayOfMonth: String(DEFAULTS.day_of_month), interval: String(DEFAULTS.interval), message: '',
  };
}

/** A stored rule (UTC) as the form shows it (local time). */
export function toDraft(rule: ScheduleRule, on: Date = new Date()): ScheduleDraft {
  const local = rule.schedule_time ? utcTimeToLocal(rule.schedule_time, on) : null;
  return {
    frequency: rule.frequency,
    time: local?.time ?? '09:00',
    weekdays: shiftWeekdays(rule.weekdays ?? [], local?.dayShift ?? 0),
    weekInterval: String(rule.week_interval ?? DEFAULTS.week_interval),
    dayOfMonth: String(rule.day_of_month ?? DEFAULTS.day_of_month),
    interval: String(rule.interval ?? DEFAULTS.interval),
    message: rule.message,
  };
}

/** The rule to send (UTC), or the first broken rule's message. */
export function fromDraft(draft: ScheduleDraft, on: Date = new Date()): { rule: ScheduleRule } | { error: string } {
  const utc = /^([01]\d|2[0-3]):[0-5]\d$/.test(draft.time) ? localTimeToUtc(draft.time, on) : null;
  const rule: ScheduleRule = {
    frequency: draft.frequency,
    schedule_time: utc?.time ?? draft.time,
    weekdays: shiftWeekdays(draft.weekdays, utc?.dayShift ?? 0),
    week_interval: whole(draft.weekInterval),
    day_of_month: whole(draft.dayOfMonth),
    interval: whole(draft.interval),
    message: draft.message,
  };
  const error = validateSchedule(rule);
  return error ? { error: error.message } : { rule: normalizeSchedule(rule) };
}

/** What a saved row's Time/Details cell says, in local time. */
export function describe(rule: ScheduleRule, on: Date = new Date()): string {
  if (rule.frequency === 'interval') return `Every ${plural(rule.interval ?? 0, 'second')}`;
  const draft = toDraft(rule, on);
  if (rule.frequency === 'daily') return draft.time;
  if (rule.frequency === 'monthly') return `${draft.time} · day ${rule.day_of_month}`;
  const every = rule.week_interval && rule.week_interval > 1 ? ` · every ${rule.week_interval} weeks` : '';
  return `${draft.time} · ${draft.weekdays.map((d) => WEEKDAY_LABELS[d]).join(', ')}${every}`;
}

const NEXT_RUN = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });

/** The next run in the viewer's local time. */
export function formatNextRun(iso: string): string {
  return NEXT_RUN.format(new Date(iso));
}

function whole(text: string): number | null {
  const trimmed = text.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : null;
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
