// /api/admin/spend (admins only): spend per user for a month (?month=YYYY-MM, default this one) with their top
// agents and their limit's status, and /export as CSV over the last `months` months (default 1, at most 24).
import type { Api, Ctx } from '../http/api.ts';
import { invalid } from '../http/errors.ts';
import { parseMonth, spendReport, spendReportMonths } from './spend-report.ts';
import { csvCell } from '../audit/routes.ts';

export function registerAdminSpendRoutes(api: Api) {
  api.get('/admin/spend', async (ctx) => {
    const month = monthParam(ctx);
    return { month: month.toISOString().slice(0, 7), users: await spendReport(ctx.db, month) };
  }, 'admin');

  api.get('/admin/spend/export', async (ctx) => {
    const month = monthParam(ctx);
    const raw = ctx.query.get('months') ?? '1';
    if (!/^\d{1,2}$/.test(raw) || Number(raw) < 1 || Number(raw) > 24) throw invalid('months', 'months must be from 1 to 24', 'query');
    const rows = await spendReportMonths(ctx.db, month, Number(raw));
    const usd = (cents: number) => (cents / 100).toFixed(2);
    const lines = [['month', 'user_id', 'email', 'spend_usd', 'limit_usd', 'status', 'top_agents'].join(',')];
    for (const r of rows) {
      const top = r.top_agents.map((a) => `${a.name} (${usd(a.spend_cents)})`).join('; ');
      lines.push([r.month, r.user_id, r.email, usd(r.spend_cents), r.limit_cents ? usd(r.limit_cents) : '', r.status, top].map(csvCell).join(','));
    }
    ctx.res.writeHead(200, {
      'Content-Type': 'text/csv; charset=utf-8', 'Cache-Control': 'no-store',
      'Content-Disposition': `attachment; filename="spend-${month.toISOString().slice(0, 7)}.csv"`,
    });
    ctx.res.end(lines.join('\r\n') + '\r\n');
    return undefined;
  }, 'admin');
}

function monthParam(ctx: Ctx): Date {
  const raw = ctx.query.get('month');
  if (!raw) {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  }
  const month = parseMonth(raw);
  if (!month) throw invalid('month', 'month must be YYYY-MM', 'query');
  return month;
}
