// /api/reports (spec §7 "Reports"): the caller's own reports only — another user's report answers
// 404 like a missing one (an admin sees another user's reports by impersonating them). Plus the
// way out of the review list: POST /reports/entries/{id}/reviewed.
import { idParam, type Api } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { dateQuery, enumQuery, intQuery } from '../http/query.ts';
import { entriesToReview, getReport, listReports, markReviewed } from './reports.ts';

export const REVIEW_LIMIT_DEFAULT = 50;
const MAX_REVIEW_LIMIT = 500;
const MAX_PAGE_SIZE = 100;

export function registerReportRoutes(api: Api) {
  api.get('/reports/entries_to_review', async (ctx) => {
    const limit = intQuery(ctx.query, 'limit', REVIEW_LIMIT_DEFAULT, 1, MAX_REVIEW_LIMIT);
    return entriesToReview(ctx.db, ctx.user.id, limit);
  });

  api.post('/reports/entries/:id/reviewed', async (ctx) => {
    const entry = await markReviewed(ctx.db, ctx.user.id, idParam(ctx.params.id, 'Entry not found'));
    if (!entry) throw new HttpError(404, 'Entry not found');
    return entry;
  });

  api.get('/reports/', async (ctx) => {
    const from = dateQuery(ctx.query, 'start_date', 'start');
    const to = dateQuery(ctx.query, 'end_date', 'end');
    if (from && to && from >= to) throw invalid('end_date', 'end_date must be after start_date', 'query');
    return listReports(ctx.db, ctx.user.id, {
      page: intQuery(ctx.query, 'page', 1, 1, 1_000_000),
      pageSize: intQuery(ctx.query, 'page_size', 20, 1, MAX_PAGE_SIZE),
      order: enumQuery(ctx.query, 'sort_order', ['asc', 'desc'] as const, 'desc'),
      from,
      to,
    });
  });

  api.get('/reports/:id', async (ctx) => {
    const report = await getReport(ctx.db, ctx.user.id, idParam(ctx.params.id, 'Report not found'));
    if (!report) throw new HttpError(404, 'Report not found');
    return report;
  });
}
