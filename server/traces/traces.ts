// LLM traces: one written per model call (failed calls too; what they add up to is billing's business,
// billing/usage.ts), and read as the /api/llm_traces routes do (spec §7 "Traces"): pages ordered
// by id DESC over the indexes of migrations 001/002, owners, thread names, cost by day, a thread's
// traces and one trace.
//
// total_count: exact up to COUNT_CAP matching rows (a capped count, cheap through the same index);
// beyond that the planner's row estimate is used (never below COUNT_CAP + 1) and the reply says
// total_count_estimated: true — an exact count over a million rows costs more than the page.
import type { Queryable } from '../db/db.ts';
import { putBackRequests, sent, splitRequest } from './sent-requests.ts';
import type { Usage } from '../models/types.ts';

export type TraceRecord = {
  owner_id: number;
  agent_id: number;
  thread_id: number;
  thread_name: string;
  model: string;
  usage: Usage;
  cost: number;
  latencyMs: number;
  parameters: unknown;
  request: unknown;
  response: unknown;
  /** The run that made the call (issue 44). */
  run_id?: number | null;
};

export async function recordTrace(db: Queryable, t: TraceRecord): Promise<number> {
  const { request, refs, parts } = splitRequest(t.thread_id, t.request);
  const [row] = await db.query<{ id: number }>(
    `WITH parts AS (
       INSERT INTO llm_trace_parts (owner_id, hash, body) SELECT $1, h, b::jsonb FROM unnest($14::text[], $15::text[]) AS u(h, b)
       ON CONFLICT DO NOTHING)
     INSERT INTO llm_traces (owner_id, agent_id, thread_id, thread_name, model, cache_read_tokens, input_tokens, output_tokens,
       estimated_cost, latency, parameters, request, response, request_parts, run_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $16, $17) RETURNING id`,
    [t.owner_id, t.agent_id, t.thread_id, t.thread_name.slice(0, 200), t.model, t.usage.cache_read_tokens,
      // "In" counts every prompt token not read from the cache (cache writes included).
      t.usage.input_tokens + t.usage.cache_write_tokens, t.usage.output_tokens,
      t.cost, Math.round(t.latencyMs) / 1000, json(t.parameters), json(request), json(t.response),
      parts.map((p) => p.hash), parts.map((p) => p.body), refs && JSON.stringify(refs), t.run_id ?? null]);
  if (refs) sent(t.thread_id, row.id, refs);
  return row.id;
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v).replace(/\\u0000/g, ''));

const ROW = `t.id, t.owner_id, u.email AS owner_email, t.created_at, t.agent_id, t.thread_id, t.run_id, t.thread_name, t.model,
  t.cache_read_tokens, t.input_tokens, t.output_tokens, t.estimated_cost, t.latency`;
const COUNT_CAP = 10_000;
const MAX_NAMES = 1000;

/** What the list and cost routes filter by; `before` is exclusive. Null/undefined: no filter. */
export type TraceFilter = {
  owner: number | null;
  threadName?: string | null;
  idFrom?: number | null;
  idTo?: number | null;
  from?: Date | null;
  before?: Date | null;
};

type Where = { where: string; params: unknown[]; byIdOrTime: boolean };

function where(f: TraceFilter): Where {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    clauses.push(sql.replace('?', `$${params.length}`));
  };
  if (f.owner !== null) add('t.owner_id = ?', f.owner);
  if (f.threadName) add('t.thread_name = ?', f.threadName);
  if (f.idFrom != null) add('t.id >= ?', f.idFrom);
  if (f.idTo != null) add('t.id <= ?', f.idTo);
  if (f.from) add('t.created_at >= ?', f.from);
  if (f.before) add('t.created_at < ?', f.before);
  const byIdOrTime = f.idFrom != null || f.idTo != null || !!f.from || !!f.before;
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params, byIdOrTime };
}

export async function listTraces(db: Queryable, filter: TraceFilter, page: number, pageSize: number) {
  const f = where(filter);
  const traces = await db.query(
    `SELECT ${ROW} FROM llm_traces t JOIN users u ON u.id = t.owner_id ${f.where} ORDER BY t.id DESC LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
    f.params);
  const { count, estimated } = await countTraces(db, f, traces.length, page, pageSize);
  return { traces, total_count: count, page, page_size: pageSize, total_count_estimated: estimated };
}

/** Everyone who has traces. */
export function traceOwners(db: Queryable) {
  return db.query('SELECT u.id, u.email FROM users u WHERE EXISTS (SELECT 1 FROM llm_traces t WHERE t.owner_id = u.id) ORDER BY lower(u.email)');
}

export async function traceThreadNames(db: Queryable, owner: number | null): Promise<string[]> {
  // Distinct names by skip scan over (owner_id, thread_name) or (thread_name): one index probe per name.
  const scope = owner === null ? '' : 'owner_id = $1 AND';
  const rows = await db.query<{ thread_name: string }>(
    `WITH RECURSIVE names(thread_name, n) AS (
       (SELECT thread_name, 1 FROM llm_traces WHERE ${scope} true ORDER BY thread_name LIMIT 1)
       UNION ALL
       SELECT (SELECT l.thread_name FROM llm_traces l
               WHERE ${scope.replace('owner_id', 'l.owner_id')} l.thread_name > names.thread_name
               ORDER BY l.thread_name LIMIT 1), n + 1
       FROM names WHERE names.thread_name IS NOT NULL AND n < ${MAX_NAMES}
     ) SELECT thread_name FROM names WHERE thread_name IS NOT NULL`,
    owner === null ? [] : [owner]);
  return rows.map((r) => r.thread_name);
}

export function costByDay(db: Queryable, filter: TraceFilter) {
  const f = where(filter);
  // By owner and thread name only: the daily sums the trigger of migration 003 keeps.
  if (!f.byIdOrTime) {
    return db.query(
      `SELECT to_char(t.day, 'YYYY-MM-DD') AS day, sum(t.cost)::float8 AS cost, sum(t.count)::int AS count
       FROM llm_trace_days t ${f.where} GROUP BY t.day HAVING sum(t.count) > 0 ORDER BY t.day`, f.params);
  }
  // Group by a date and format afterwards: to_char per row costs 3× over a million rows.
  return db.query(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.cost, d.count FROM (
       SELECT (t.created_at AT TIME ZONE 'UTC')::date AS day, COALESCE(sum(t.estimated_cost), 0)::float8 AS cost, count(*)::int AS count
       FROM llm_traces t ${f.where} GROUP BY 1) d ORDER BY d.day`, f.params);
}

/** Ascending by id: no cursor gives the newest `limit`, `before` an older page, `after` newer ones. */
export async function threadTraces(db: Queryable, threadId: number, q: { after: number | null; before: number | null; limit: number; verbose: boolean }) {
  const { after, before, limit } = q;
  const columns = `${ROW}, t.parameters${q.verbose ? ', t.request, t.request_parts, t.response' : ''}`;
  let traces: Record<string, any>[];
  if (after !== null) {
    traces = await db.query(
      `SELECT ${columns} FROM llm_traces t JOIN users u ON u.id = t.owner_id
       WHERE t.thread_id = $1 AND t.id > $2 ${before !== null ? 'AND t.id < $4' : ''} ORDER BY t.id ASC LIMIT $3`,
      before !== null ? [threadId, after, limit, before] : [threadId, after, limit]);
  } else {
    traces = (await db.query(
      `SELECT ${columns} FROM llm_traces t JOIN users u ON u.id = t.owner_id
       WHERE t.thread_id = $1 ${before !== null ? 'AND t.id < $3' : ''} ORDER BY t.id DESC LIMIT $2`,
      before !== null ? [threadId, limit, before] : [threadId, limit])).reverse();
  }
  // has_more: older traces exist before the first one returned (false when none is returned).
  if (q.verbose) await putBackRequests(db, traces);
  const has_more = traces.length > 0 &&
    (await db.query('SELECT 1 FROM llm_traces WHERE thread_id = $1 AND id < $2 LIMIT 1', [threadId, traces[0].id])).length > 0;
  return { traces, has_more };
}

/** One trace with its bodies, or null. */
export async function getTrace(db: Queryable, id: number): Promise<Record<string, any> | null> {
  const [trace] = await db.query(
    `SELECT ${ROW}, t.parameters, t.request, t.request_parts, t.response FROM llm_traces t JOIN users u ON u.id = t.owner_id WHERE t.id = $1`,
    [id]);
  if (!trace) return null;
  await putBackRequests(db, [trace]);
  return trace;
}

async function countTraces(db: Queryable, f: Where, onPage: number, page: number, pageSize: number): Promise<{ count: number; estimated: boolean }> {
  // A short page that is not empty ends the list: no count query needed.
  if (onPage > 0 && onPage < pageSize) return { count: (page - 1) * pageSize + onPage, estimated: false };
  const [{ n }] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM llm_traces t ${f.where} LIMIT ${COUNT_CAP + 1}) s`, f.params);
  if (n <= COUNT_CAP) return { count: n, estimated: false };
  const [plan] = await db.query<{ 'QUERY PLAN': any }>(`EXPLAIN (FORMAT JSON) SELECT 1 FROM llm_traces t ${f.where}`, f.params);
  const rows = Number(planRows(plan['QUERY PLAN']));
  const floor = Math.max(COUNT_CAP + 1, (page - 1) * pageSize + onPage);
  return { count: Math.max(floor, Number.isFinite(rows) ? Math.round(rows) : floor), estimated: true };
}

function planRows(plan: any): number {
  const parsed = typeof plan === 'string' ? JSON.parse(plan) : plan;
  return parsed?.[0]?.Plan?.['Plan Rows'];
}
