// Query-string values read strictly: a missing or empty value takes the default, anything else that
// is not what the route expects is a 422 naming the parameter (never silently clamped).
import { HttpError } from './errors.ts';

/** The 422 for a bad query value, naming the parameter. */
export const invalidQuery = (name: string, msg: string) => new HttpError(422, [{ loc: ['query', name], msg, type: 'value_error' }]);
const bad = invalidQuery;

export function intQuery(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  return optionalIntQuery(query, name, min, max) ?? fallback;
}

/** A whole number from min to max, or null when the parameter is absent or empty. */
export function optionalIntQuery(query: URLSearchParams, name: string, min: number, max: number): number | null {
  const raw = query.get(name);
  if (raw === null || raw === '') return null;
  const n = Number(raw.trim());
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) throw bad(name, `${name} must be a whole number from ${min} to ${max}`);
  return n;
}

export function enumQuery<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw bad(name, `${name} must be one of ${allowed.join(', ')}`);
  return raw as T;
}

/**
 * A date 'YYYY-MM-DD' (UTC midnight; as an end, the next midnight, so the day is included) or an
 * ISO 8601 date-time with a zone; null when absent.
 */
export function dateQuery(query: URLSearchParams, name: string, edge: 'start' | 'end'): Date | null {
  const raw = query.get(name)?.trim();
  if (!raw) return null;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  let date: Date;
  if (day) {
    date = new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]) + (edge === 'end' ? 1 : 0)));
    const check = new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])));
    if (check.getUTCDate() !== Number(day[3]) || check.getUTCMonth() !== Number(day[2]) - 1) throw bad(name, `${name} is not a calendar date`);
  } else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(raw)) {
    date = new Date(raw.replace(' ', 'T'));
  } else {
    throw bad(name, `${name} must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a time zone`);
  }
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1970 || date.getUTCFullYear() > 9999) throw bad(name, `${name} is out of range`);
  return date;
}
