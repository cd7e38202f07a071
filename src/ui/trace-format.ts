// Display formats for trace values (and dates), shared by the traces panel, the LLM Traces page and reports.
// Every formatter answers 'No data' for a missing value (spec §2).

export const NO_DATA = 'No data';

type Maybe<T> = T | null | undefined;

const isNumber = (value: Maybe<number>): value is number => typeof value === 'number' && Number.isFinite(value);

/** 'Main' or 'Sub' by the thread_name prefix; null when the name has neither. */
export function threadMarker(threadName: Maybe<string>): 'Main' | 'Sub' | null {
  if (!threadName) return null;
  if (threadName.startsWith('Sub')) return 'Sub';
  if (threadName.startsWith('Main')) return 'Main';
  return null;
}

export function formatTokens(value: Maybe<number>): string {
  return isNumber(value) ? Math.round(value).toLocaleString('en-US') : NO_DATA;
}

/** USD: cents precision, or four decimals for sub-cent amounts so a cheap call does not read as free. */
export function formatCost(value: Maybe<number>): string {
  if (!isNumber(value)) return NO_DATA;
  if (value === 0) return '$0.00';
  if (Math.abs(value) < 0.0001) return '<$0.0001';
  return `$${value.toFixed(Math.abs(value) < 0.01 ? 4 : 2)}`;
}

export function formatLatency(seconds: Maybe<number>): string {
  if (!isNumber(seconds)) return NO_DATA;
  // A call measured as 0 took under a hundredth too: one wording for both, side by side in a list.
  if (seconds >= 0 && seconds < 0.005) return '<0.01 s';
  return seconds < 10 ? `${seconds.toFixed(2)} s` : `${seconds.toFixed(1)} s`;
}

const pad = (n: number) => String(n).padStart(2, '0');

function parseDate(value: Maybe<string>): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Local 'HH:MM:SS' (the panel shows one thread's recent calls). */
export function formatTime(value: Maybe<string>): string {
  const date = parseDate(value);
  return date ? `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` : NO_DATA;
}

/** Local 'YYYY-MM-DD HH:MM:SS'. */
export function formatDateTime(value: Maybe<string>): string {
  const date = parseDate(value);
  if (!date) return NO_DATA;
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day} ${formatTime(value)}`;
}

/** Pretty JSON for the modal's tabs; 'No data' for a missing value. */
export function prettyJson(value: unknown): string {
  if (value === undefined || value === null) return NO_DATA;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value); // a cycle cannot come from JSON, but the viewer must not throw in render
  }
}
