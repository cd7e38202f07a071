// /api/admin/audit (admins only, and not while impersonating someone who is not one): the audit trail's
// filtered pages, its export as JSON lines or CSV (streamed batch by batch with backpressure, so any number
// of events goes out in bounded memory), and the chain's verification.
import type { ServerResponse } from 'node:http';
import type { Api, Ctx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { auditBatches, listAudit, verifyAudit, type AuditFilter, type AuditRow } from './read.ts';
import type { Log } from '../ops/log.ts';
import type { Queryable } from '../db/db.ts';

type Deps = { log: Log };

export function registerAdminAuditRoutes(api: Api, deps: Deps) {
  api.get('/admin/audit', async (ctx) => withAgentNames(ctx.db, await listAudit(ctx.db, filterOf(auditor(ctx)))), 'admin');

  api.get('/admin/audit/verify', (ctx) => verifyAudit(auditor(ctx).db), 'admin');

  api.get('/admin/audit/export', async (ctx) => {
    const format = auditor(ctx).query.get('format') ?? 'jsonl';
    if (format !== 'jsonl' && format !== 'csv') throw invalid('format', 'format must be jsonl or csv', 'query');
    const filter = filterOf(ctx);
    const { res } = ctx;
    const day = new Date().toISOString().slice(0, 10);
    res.writeHead(200, {
      'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="audit-${day}.${format}"`,
      'Cache-Control': 'no-store',
    });
    try {
      if (format === 'csv') await write(res, CSV_COLUMNS.join(',') + '\r\n');
      for await (const batch of auditBatches(ctx.db, filter)) {
        if (res.destroyed) return undefined; // the client went away: stop reading
        await write(res, batch.map(format === 'csv' ? csvLine : (e) => JSON.stringify(e) + '\n').join(''));
      }
      res.end();
    } catch (err) {
      // Headers are gone: a cut-off body is all that can say so.
      deps.log.error(`audit export failed: ${(err as Error).message}`);
      res.destroy();
    }
    return undefined;
  }, 'admin');
}

/** The route's 'admin' level checks the signed-in admin; an admin acting as a non-admin does not read the trail either. */
function auditor(ctx: Ctx): Ctx {
  if (ctx.user.role !== 'admin') throw new HttpError(403, 'Forbidden: Admins only');
  return ctx;
}

function filterOf(ctx: Ctx): AuditFilter {
  const q = ctx.query;
  const text = (name: string, max = 200) => {
    const v = q.get(name)?.trim();
    if (v && v.length > max) throw invalid(name, `${name} must be at most ${max} characters`, 'query');
    return v || null;
  };
  const date = (name: string) => {
    const v = text(name);
    if (!v) return null;
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) throw invalid(name, `${name} must be a date (ISO 8601)`, 'query');
    return d;
  };
  const cursor = text('cursor');
  if (cursor && !/^\d{1,18}$/.test(cursor)) throw invalid('cursor', 'cursor must be the next_cursor of a page', 'query');
  return {
    actor: text('actor'), action: text('action'), target_type: text('target_type'), target_id: text('target_id'),
    since: date('since'), until: date('until'), cursor: cursor ? Number(cursor) : null,
  };
}

function write(res: ServerResponse, chunk: string): Promise<void> {
  if (res.write(chunk)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

export const CSV_COLUMNS = [
  'id', 'at', 'instance', 'actor_type', 'actor_id', 'actor_label', 'impersonator_id', 'impersonator_label', 'action',
  'target_type', 'target_id', 'request_id', 'ip', 'user_agent', 'detail', 'prev_hash', 'hash',
] as const;

/** RFC 4180; a text cell that a spreadsheet would run as a formula (=, +, -, @) gets a leading apostrophe. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvLine(e: AuditRow): string {
  return CSV_COLUMNS.map((c) => csvCell(e[c])).join(',') + '\r\n';
}

/**
 * The page's events with the names of the agents they are about (`agent_name`) and of an agent that acted
 * (`actor_name`), as the agents are called now, so that the sentences read "agent “Sales” (#3)"; an agent deleted
 * since has none. The stored events (and the export) stay as written.
 */
async function withAgentNames(db: Queryable, page: { events: AuditRow[]; next_cursor: string | null }) {
  const about = (e: AuditRow) => Number(e.target_type === 'agent' ? e.target_id : e.detail?.agent_id) || null;
  const ids = [...new Set(page.events.flatMap((e) => [about(e), e.actor_type === 'agent' ? Number(e.actor_id) : null]).filter((id) => id))];
  const rows = ids.length ? await db.query<{ id: number; name: string }>('SELECT id, name FROM agents WHERE id = ANY($1::int[])', [ids]) : [];
  const names = new Map(rows.map((r) => [r.id, r.name]));
  const events = page.events.map((e) => ({
    ...e, agent_name: names.get(about(e) ?? 0) ?? null, actor_name: e.actor_type === 'agent' ? names.get(Number(e.actor_id)) ?? null : null,
  }));
  return { ...page, events };
}
