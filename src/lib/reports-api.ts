// Typed calls for the reports endpoints (spec §7 "Reports") and the shapes of spec §3. The paths
// double as useResource keys.
import { request } from './http.ts';

/** Spec §9: the review list asks for 50 entries and shows 20 a page; the list of reports pages by 20. */
export const REVIEW_LIMIT = 50;
export const REVIEW_PAGE_SIZE = 20;
export const REPORTS_PAGE_SIZE = 20;

export type SortOrder = 'desc' | 'asc';

export type ReportItem = { id: number; title: string; description: string; created_at: string; agent_id: number | null };
export type ReportEntry = { id: number; title: string; description: string; created_at: string; completion_rate: number | null; needs_review?: boolean };
export type Report = ReportItem & { entries: ReportEntry[] };
export type ReviewEntry = Omit<ReportEntry, 'needs_review'> & { report_id: number; report_title: string };
export type ReportPage = { reports: ReportItem[]; total_count: number };

export const reviewPath = `/reports/entries_to_review?limit=${REVIEW_LIMIT}`;
export const reportsPath = (page: number, sortOrder: SortOrder, pageSize = REPORTS_PAGE_SIZE) =>
  `/reports/?page=${page}&page_size=${pageSize}&sort_order=${sortOrder}`;
export const reportPath = (id: number) => `/reports/${id}`;

export const markReviewed = (entryId: number) => request<ReportEntry>(`/reports/entries/${entryId}/reviewed`, { method: 'POST' });
