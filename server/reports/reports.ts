// Reports and their entries: written by the runner's report tool, read and reviewed by their owner.
// An entry needs review while its completion is below 1 or the agent flagged it, until its owner
// marks it reviewed. Every read is scoped to the owner: another user's report is simply not there.
import type { Queryable } from '../db/db.ts';

export type NewEntry = { title: string; description: string; completion_rate: number | null; flagged?: boolean };
export type ReportQuery = { page: number; pageSize: number; order: 'asc' | 'desc'; from: Date | null; to: Date | null };

const REPORT = 'r.id, r.title, r.description, r.created_at, r.agent_id';
const ENTRY = 'e.id, e.title, e.description, e.created_at, e.completion_rate, e.needs_review';

export const needsReview = (e: NewEntry) => !!e.flagged || (e.completion_rate !== null && e.completion_rate < 1);

export async function createReport(
  db: Queryable, r: { ownerId: number; agentId: number; threadId: number; title: string; description: string },
): Promise<number> {
  const [row] = await db.query<{ id: number }>(
    'INSERT INTO reports (owner_id, agent_id, thread_id, title, description) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [r.ownerId, r.agentId, r.threadId, r.title, r.description]);
  return row.id;
}

/** The report's id when this agent of this owner made it, else null. */
export async function agentReportId(db: Queryable, reportId: number, ownerId: number, agentId: number): Promise<number | null> {
  const [row] = await db.query<{ id: number }>('SELECT id FROM reports WHERE id = $1 AND owner_id = $2 AND agent_id = $3', [reportId, ownerId, agentId]);
  return row?.id ?? null;
}

export async function addEntries(db: Queryable, reportId: number, entries: NewEntry[]): Promise<void> {
  if (!entries.length) return;
  await db.query(
    `INSERT INTO report_entries (report_id, title, description, completion_rate, needs_review)
     SELECT $1, t, d, r, n FROM unnest($2::text[], $3::text[], $4::float8[], $5::bool[]) AS v(t, d, r, n)`,
    [reportId, entries.map((e) => e.title), entries.map((e) => e.description), entries.map((e) => e.completion_rate), entries.map(needsReview)]);
}

export async function listReports(db: Queryable, ownerId: number, q: ReportQuery) {
  const params: unknown[] = [ownerId];
  let where = 'r.owner_id = $1';
  if (q.from) where += ` AND r.created_at >= $${params.push(q.from)}`;
  if (q.to) where += ` AND r.created_at < $${params.push(q.to)}`;
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  const reports = await db.query(
    `SELECT ${REPORT} FROM reports r WHERE ${where} ORDER BY r.created_at ${dir}, r.id ${dir} LIMIT ${q.pageSize} OFFSET ${(q.page - 1) * q.pageSize}`,
    params);
  const [{ total_count }] = await db.query<{ total_count: number }>(`SELECT count(*)::int AS total_count FROM reports r WHERE ${where}`, params);
  return { reports, total_count };
}

export async function getReport(db: Queryable, ownerId: number, id: number) {
  const [report] = await db.query(`SELECT ${REPORT} FROM reports r WHERE r.id = $1 AND r.owner_id = $2`, [id, ownerId]);
  if (!report) return null;
  const entries = await db.query(`SELECT ${ENTRY} FROM report_entries e WHERE e.report_id = $1 ORDER BY e.created_at, e.id`, [id]);
  return { ...report, entries };
}

export async function entriesToReview(db: Queryable, ownerId: number, limit: number) {
  return db.query(
    `SELECT e.id, e.report_id, r.title AS report_title, e.title, e.description, e.created_at, e.completion_rate
     FROM report_entries e JOIN reports r ON r.id = e.report_id
     WHERE e.needs_review AND r.owner_id = $1 ORDER BY e.created_at DESC, e.id DESC LIMIT $2`,
    [ownerId, limit]);
}

/** Clears the entry from the review list; null when the owner has no such entry. */
export async function markReviewed(db: Queryable, ownerId: number, entryId: number) {
  const [entry] = await db.query(
    `UPDATE report_entries e SET needs_review = false, reviewed_at = COALESCE(e.reviewed_at, now())
     FROM reports r WHERE e.id = $1 AND r.id = e.report_id AND r.owner_id = $2
     RETURNING e.id, e.report_id, e.title, e.description, e.created_at, e.completion_rate, e.needs_review, e.reviewed_at`,
    [entryId, ownerId]);
  return entry ?? null;
}
