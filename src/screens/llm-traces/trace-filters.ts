// The LLM Traces page's filter form as typed text, and its translation into query filters (spec §5
// "Trace filters"): IDs must be whole numbers, date-times are entered in local time and sent in UTC as
// 'YYYY-MM-DD HH:MM'. Invalid fields come back as messages and are left out of the query.
import type { TraceFilters } from '../../lib/traces-api.ts';

export type FilterDraft = {
  /** '' means all owners. */
  ownerId: string;
  /** '' means all thread names. */
  threadName: string;
  idFrom: string;
  idTo: string;
  /** A datetime-local value, 'YYYY-MM-DDTHH:MM' (seconds optional), in the browser's time zone. */
  createdFrom: string;
  createdTo: string;
};

export type FilterErrors = Partial<Record<'idFrom' | 'idTo' | 'createdFrom' | 'createdTo', string>>;

export const EMPTY_DRAFT: FilterDraft = { ownerId: '', threadName: '', idFrom: '', idTo: '', createdFrom: '', createdTo: '' };

export const ID_ERROR = 'Enter a whole number.';
export const DATE_ERROR = 'Enter a valid date and time.';
export const ID_ORDER_ERROR = 'Must not be below ID From.';
export const DATE_ORDER_ERROR = 'Must not be before Timestamp From.';

const pad = (n: number) => String(n).padStart(2, '0');

/** 'YYYY-MM-DDTHH:MM' in local time → 'YYYY-MM-DD HH:MM' in UTC; null when it is not such a value. */
export function localToUtcMinute(value: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?$/.exec(value.trim());
  if (!match) return null;
  const [year, month, day, hour, minute] = match.slice(1).map(Number);
  const date = new Date(year, month - 1, day, hour, minute);
  // new Date() rolls 2024-02-31 over into March; a rolled-over date was not a real one.
  if (date.getFullYear() !== year || date.getMonth() !== month - 1 || date.getDate() !== day || date.getMinutes() !== minute) return null;
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
}

/** A non-negative whole number (trace and user ids), or null. */
export function parseId(value: string): number | null {
  const text = value.trim();
  if (!/^\d{1,15}$/.test(text)) return null;
  return Number(text);
}

export function parseFilters(draft: FilterDraft): { filters: TraceFilters; errors: FilterErrors } {
  const filters: TraceFilters = {};
  const errors: FilterErrors = {};

  const owner = parseId(draft.ownerId);
  if (owner !== null) filters.owner_id = owner;
  if (draft.threadName) filters.thread_name = draft.threadName;

  for (const [field, key] of [['idFrom', 'id_from'], ['idTo', 'id_to']] as const) {
    if (draft[field].trim() === '') continue;
    const id = parseId(draft[field]);
    if (id === null) errors[field] = ID_ERROR;
    else filters[key] = id;
  }
  if (filters.id_from !== undefined && filters.id_to !== undefined && filters.id_to < filters.id_from) {
    errors.idTo = ID_ORDER_ERROR;
    delete filters.id_to;
  }

  for (const [field, key] of [['createdFrom', 'created_at_from'], ['createdTo', 'created_at_to']] as const) {
    if (draft[field].trim() === '') continue;
    const utc = localToUtcMinute(draft[field]);
    if (utc === null) errors[field] = DATE_ERROR;
    else filters[key] = utc;
  }
  // The UTC strings have a fixed width, so comparing them as text compares the instants.
  if (filters.created_at_from && filters.created_at_to && filters.created_at_to < filters.created_at_from) {
    errors.createdTo = DATE_ORDER_ERROR;
    delete filters.created_at_to;
  }

  return { filters, errors };
}
