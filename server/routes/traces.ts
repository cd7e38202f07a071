// /api/llm_traces (spec §7 "Traces") and /api/models/status. A user sees only their own traces;
// an admin sees everyone's and may filter by owner (while impersonating, the admin acts as that
// user). Lists are ordered by id DESC and paged by the indexes of migrations 001/002.
//
// total_count: exact up to COUNT_CAP matching rows (a capped count, cheap through the same index);
// beyond that the planner's row estimate is used (never below COUNT_CAP + 1) and the reply says
// total_count_estimated: true — an exact count over a million rows costs more than the page.
import type { Queryable } from '../db/db.ts';
import { idParam, type Api, type Ctx } from '../http/api.ts';
import { HttpError } from '../http/errors.ts';
import { intQuery, invalidQuery, optionalIntQuery } from '../http/query.ts';
import { ownedThread } from '../domain/access.ts';

const ROW = `t.id, t.owner_id, u.email AS owner_email, t.created_at, t.agent_id, t.thread_id, t.thread_name, t.model,
  t.cache_read_tokens, t.input_tokens, t.output_tokens, t.estimated_cost, t.latency`;
const COUNT_CAP = 10_000;
const MAX_PAGE_SIZE = 100;
const MAX_THREAD_LIMIT = 500;
const MAX_NAMES = 1000;

export function registerTraceRoutes(api: Api) {
  api.get('/llm_traces/', async (ctx) => {
    const f = filters(ctx);
    const page = intQuery(ctx.query, 'page', 1, 1, 1_000_000);
    const pageSize = intQuery(ctx.query, 'page_size', 20, 1, MAX_PAGE_SIZE);
    const { db } = ctx.services;
    const traces = await db.query(
      `SELECT ${ROW} FROM llm_traces t JOIN users u ON u.id = t.owner_id ${f.where} ORDER BY t.id DESC LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
      f.params);
    const { count, estimated } = await countTraces(db, f, traces.length, page, pageSize);
    return { traces, total_count: count, page, page_size: pageSize, total_count_estimated: estimated };
  });

  api.get('/llm_traces/owners', async (ctx) => {
    if (!isAdmin(ctx)) return [{ id: ctx.user.id, email: ctx.user.email }];
    return ctx.services.db.query(
      'SELECT u.id, u.email FROM users u WHERE EXISTS (SELECT 1 FROM llm_traces t WHERE t.owner_id = u.id) ORDER BY lower(u.email)');
  });

  api.get('/llm_traces/thread_names', async (ctx) => {
    const owner = ownerScope(ctx);
    // Distinct names by skip scan over (owner_id, thread_name) or (thread_name): one index probe per name.
    const scope = owner === null ? '' : 'owner_id = $1 AND';
    const rows = await ctx.services.db.query<{ thread_name: string }>(
      `WITH RECURSIVE names(thread_name, n) AS (
         (SELECT thread_name, 1 FROM llm_traces WHERE ${scope} true ORDER BY thread_name LIMIT 1)
         UNION ALL
         SELECT (SELECT l.thread_name FROM llm_traces l WHERE ${scope.replace('owner_id', 'l.owner_id')} l.thread_name > names.thread_name ORDER BY l.thread_name LIMIT 1), n + 1
         FROM names WHERE names.thread_name IS NOT NULL AND n < ${MAX_NAMES}
       ) SELECT thread_name FROM names WHERE thread_name IS NOT NULL`,
      owner === null ? [] : [owner]);
    return rows.map((r) => r.thread_name);
  });

  api.get('/llm_traces/cost_by_day', async (ctx) => {
    const f = filters(ctx);
    // By owner and thread name only: the daily sums the trigger of migration 003 keeps.
    if (!f.byIdOrTime) {
      return ctx.services.db.query(
        `SELECT to_char(t.day, 'YYYY-MM-DD') AS day, sum(t.cost)::float8 AS cost, sum(t.count)::int AS count
         FROM llm_trace_days t ${f.where} GROUP BY t.day HAVING sum(t.count) > 0 ORDER BY t.day`, f.params);
    }
    // Group by a date and format afterwards: to_char per row costs 3× over a million rows.
    return ctx.services.db.query(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.cost, d.count FROM (
         SELECT (t.created_at AT TIME ZONE 'UTC')::date AS day, COALESCE(sum(t.estimated_cost), 0)::float8 AS cost, count(*)::int AS count
         FROM llm_traces t ${f.where} GROUP BY 1) d ORDER BY d.day`, f.params);
  });

  api.get('/llm_traces/thread/:threadId', async (ctx) => {
    const threadId = idParam(ctx.params.threadId, 'Thread not found');
    await ownedThread(ctx.services.db, ctx.user, threadId);
    const after = optionalIntQuery(ctx.query, 'after_trace_id', 0, 2147483647);
    const before = optionalIntQuery(ctx.query, 'before_trace_id', 0, 2147483647);
    const limit = intQuery(ctx.query, 'limit', 100, 1, MAX_THREAD_LIMIT);
    const verboseRaw = ctx.query.get('verbose') ?? 'false';
    if (verboseRaw !== 'true' && verboseRaw !== 'false') throw invalidQuery('verbose', 'verbose must be true or false');
    const columns = `${ROW}, t.parameters${verboseRaw === 'true' ? ', t.request, t.response' : ''}`;
    const { db } = ctx.services;
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
    const has_more = traces.length > 0 &&
      (await db.query('SELECT 1 FROM llm_traces WHERE thread_id = $1 AND id < $2 LIMIT 1', [threadId, traces[0].id])).length > 0;
    return { traces, has_more };
  });

  api.get('/llm_traces/:id', async (ctx) => {
    const id = idParam(ctx.params.id, 'Trace not found');
    const trace = await ctx.services.db.one(
      `SELECT ${ROW}, t.parameters, t.request, t.response FROM llm_traces t JOIN users u ON u.id = t.owner_id WHERE t.id = $1`, [id]);
    if (!trace || (!isAdmin(ctx) && trace.owner_id !== ctx.user.id)) throw new HttpError(404, 'Trace not found');
    return trace;
  });

  api.get('/models/status', (ctx) => {
    const provider = ctx.services.runner?.provider ?? ctx.services.models;
    return { provider: provider?.name ?? ctx.services.config.modelProvider, model: provider?.model ?? '', offline: provider?.offline ?? true };
  });
}

const isAdmin = (ctx: Ctx) => ctx.user.role === 'admin';

/** The owner the query is limited to: always the caller for a user; an admin's owner_id filter, or everyone. */
function ownerScope(ctx: Ctx): number | null {
  const requested = optionalIntQuery(ctx.query, 'owner_id', 1, 2147483647);
  if (isAdmin(ctx)) return requested;
  if (requested !== null && requested !== ctx.user.id) throw new HttpError(403, 'Forbidden: you can only see your own traces');
  return ctx.user.id;
}

type Filters = { where: string; params: unknown[]; owner: number | null; narrow: boolean; byIdOrTime: boolean };

function filters(ctx: Ctx): Filters {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    clauses.push(sql.replace('?', `$${params.length}`));
  };
  const owner = ownerScope(ctx);
  if (owner !== null) add('t.owner_id = ?', owner);
  const name = ctx.query.get('thread_name');
  if (name) add('t.thread_name = ?', name);
  const idFrom = optionalIntQuery(ctx.query, 'id_from', 0, 2147483647);
  const idTo = optionalIntQuery(ctx.query, 'id_to', 0, 2147483647);
  if (idFrom !== null) add('t.id >= ?', idFrom);
  if (idTo !== null) add('t.id <= ?', idTo);
  const from = dateTime(ctx, 'created_at_from');
  const to = dateTime(ctx, 'created_at_to');
  if (from) add('t.created_at >= ?', from.at);
  // 'YYYY-MM-DD HH:MM' names a whole minute: the upper bound includes all of it.
  if (to) add('t.created_at < ?', new Date(to.at.getTime() + to.unitMs));
  const byIdOrTime = idFrom !== null || idTo !== null || !!from || !!to;
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params, owner, narrow: clauses.length > 0, byIdOrTime };
}

async function countTraces(db: Queryable, f: Filters, onPage: number, page: number, pageSize: number): Promise<{ count: number; estimated: boolean }> {
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

// --- query values: bad numbers and dates are 422 {detail: [{loc, msg}]} (server/http/query.ts)

/** 'YYYY-MM-DD HH:MM' (also with 'T' or seconds) read as UTC. */
function dateTime(ctx: Ctx, name: string): { at: Date; unitMs: number } | null {
  const raw = (ctx.query.get(name) ?? '').trim();
  if (!raw) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(raw);
  if (m) {
    const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1);
    const date = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
    const valid = date.getUTCFullYear() === +y && date.getUTCMonth() === +mo - 1 && date.getUTCDate() === +d && +h < 24 && +mi < 60 && +s < 60;
    if (valid) return { at: date, unitMs: m[6] !== undefined ? 1000 : m[4] !== undefined ? 60_000 : 86_400_000 };
  }
  throw invalidQuery(name, `${name} must be a date and time as YYYY-MM-DD HH:MM (UTC)`);
}
