// The reports wing (spec section 7 "Reports"): the caller's own reports, their entries, and the review list.
import { arr, bool, extend, id, int, json, nullable, num, obj, oneOfEnum, query, ref, str, time, type WingTable } from '../schema.ts';

const RATE = nullable(num({ minimum: 0, maximum: 1, description: 'Completion, 0 to 1' }));
const REPORT = obj({ id: id(), title: str(), description: str(), created_at: time(), agent_id: nullable(id()) });
const ENTRY = obj({ id: id(), title: str(), description: str(), created_at: time(), completion_rate: RATE, needs_review: bool() });
const DATE = (what: string) => query(str(), `${what}: YYYY-MM-DD (a whole UTC day) or an ISO 8601 date-time with a zone`);

export const REPORTS: WingTable = {
  tag: 'reports',
  description: "Reports the agents wrote, and the entries waiting for their owner's review.",
  schemas: {
    Report: REPORT,
    ReportEntry: ENTRY,
    ReportDetail: extend(REPORT, { entries: arr(ref('ReportEntry')) }),
    EntryToReview: obj({ id: id(), report_id: id(), report_title: str(), title: str(), description: str(), created_at: time(), completion_rate: RATE }),
  },
  operations: {
    'GET /reports/entries_to_review': {
      summary: 'Entries waiting for review, newest first',
      query: { limit: query(int({ minimum: 1, maximum: 500, default: 50 }), 'How many') },
      responses: { 200: json(arr(ref('EntryToReview'))) },
    },
    'POST /reports/entries/:id/reviewed': {
      summary: 'Take an entry off the review list',
      responses: { 200: json(extend(ENTRY, { report_id: id(), reviewed_at: time() })) },
    },
    'GET /reports/': {
      summary: 'A page of reports',
      query: {
        page: query(int({ minimum: 1, default: 1 }), 'From 1'),
        page_size: query(int({ minimum: 1, maximum: 100, default: 20 }), 'Reports per page'),
        sort_order: query(oneOfEnum(['asc', 'desc'], { default: 'desc' }), 'By creation time'),
        start_date: DATE('From'),
        end_date: DATE('Up to'),
      },
      responses: { 200: json(obj({ reports: arr(ref('Report')), total_count: int({ minimum: 0 }) })) },
    },
    'GET /reports/:id': { summary: 'A report with its entries', responses: { 200: json(ref('ReportDetail')) } },
  },
};
