// /api/llm_traces (spec §7 "Traces") and /api/models/status. A user sees only their own traces;
// an admin sees everyone's and may filter by owner (while impersonating, the admin acts as that
// user). The queries are server/traces/traces.ts; here the filters are parsed and access is checked.
import { idParam, type Api, type Ctx } from '../http/api.ts';
import { HttpError } from '../http/errors.ts';
import { intQuery, invalidQuery, optionalIntQuery } from '../http/query.ts';
import { ownedThread } from '../agents/access.ts';
import { costByDay, getTrace, listTraces, threadTraces, traceOwners, traceThreadNames, type TraceFilter } from './traces.ts';
import type { Config } from '../config/index.ts';
import type { ModelProvider } from '../models/types.ts';

/** The model the runs use: the runner's, else the one configured (MODEL_PROVIDER). */
type Deps = { config: Pick<Config, 'modelProvider'>; models?: ModelProvider; runner?: { provider: ModelProvider } };

const MAX_PAGE_SIZE = 100;
const MAX_THREAD_LIMIT = 500;

export function registerTraceRoutes(api: Api, deps: Deps) {
  api.get('/llm_traces/', async (ctx) => {
    const filter = filters(ctx);
    const page = intQuery(ctx.query, 'page', 1, 1, 1_000_000);
    const pageSize = intQuery(ctx.query, 'page_size', 20, 1, MAX_PAGE_SIZE);
    return listTraces(ctx.db, filter, page, pageSize);
  });

  api.get('/llm_traces/owners', async (ctx) => {
    if (!isAdmin(ctx)) return [{ id: ctx.user.id, email: ctx.user.email }];
    return traceOwners(ctx.db);
  });

  api.get('/llm_traces/thread_names', (ctx) => traceThreadNames(ctx.db, ownerScope(ctx)));

  api.get('/llm_traces/cost_by_day', (ctx) => costByDay(ctx.db, filters(ctx)));

  api.get('/llm_traces/thread/:threadId', async (ctx) => {
    const threadId = idParam(ctx.params.threadId, 'Thread not found');
    await ownedThread(ctx.db, ctx.user, threadId);
    const after = optionalIntQuery(ctx.query, 'after_trace_id', 0, 2147483647);
    const before = optionalIntQuery(ctx.query, 'before_trace_id', 0, 2147483647);
    const limit = intQuery(ctx.query, 'limit', 100, 1, MAX_THREAD_LIMIT);
    const verboseRaw = ctx.query.get('verbose') ?? 'false';
    if (verboseRaw !== 'true' && verboseRaw !== 'false') throw invalidQuery('verbose', 'verbose must be true or false');
    return threadTraces(ctx.db, threadId, { after, before, limit, verbose: verboseRaw === 'true' });
  });

  api.get('/llm_traces/:id', async (ctx) => {
    const id = idParam(ctx.params.id, 'Trace not found');
    const trace = await getTrace(ctx.db, id);
    if (!trace || (!isAdmin(ctx) && trace.owner_id !== ctx.user.id)) throw new HttpError(404, 'Trace not found');
    return trace;
  });

  api.get('/models/status', (ctx) => {
    const provider = deps.runner?.provider ?? deps.models;
    return { provider: provider?.name ?? deps.config.modelProvider, model: provider?.model ?? '', offline: provider?.offline ?? true };
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

/** The list and cost filters of the query (bad numbers and dates are 422 {detail: [{loc, msg}]}). */
function filters(ctx: Ctx): TraceFilter {
  const owner = ownerScope(ctx);
  const idFrom = optionalIntQuery(ctx.query, 'id_from', 0, 2147483647);
  const idTo = optionalIntQuery(ctx.query, 'id_to', 0, 2147483647);
  const from = dateTime(ctx, 'created_at_from');
  const to = dateTime(ctx, 'created_at_to');
  return {
    owner,
    threadName: ctx.query.get('thread_name') || null,
    idFrom,
    idTo,
    from: from?.at ?? null,
    // 'YYYY-MM-DD HH:MM' names a whole minute: the upper bound includes all of it.
    before: to ? new Date(to.at.getTime() + to.unitMs) : null,
  };
}

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
