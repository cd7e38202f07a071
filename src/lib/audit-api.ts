// Typed calls for the audit trail (/api/admin/audit: pages, verification, export) and the spend report (/api/admin/spend).
import { request, TIMEOUTS } from './http.ts';
import { saveBlob } from './save-blob.ts';

export type AuditEvent = {
  id: number;
  at: string;
  instance: string;
  actor_type: 'user' | 'agent' | 'system';
  actor_id: number | null;
  actor_label: string | null;
  impersonator_id: number | null;
  impersonator_label: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  detail: Record<string, any>;
  prev_hash: string;
  hash: string;
  /** The name the agent the event is about has now, and the acting agent's (null: deleted since). */
  agent_name?: string | null;
  actor_name?: string | null;
};

export type AuditPage = { events: AuditEvent[]; next_cursor: string | null };
export type AuditVerdict = { ok: boolean; checked: number; first_bad_id: number | null };
export type AuditFilter = { actor?: string; action?: string; target_type?: string; target_id?: string; since?: string; until?: string };

export const AUDIT_VERIFY_PATH = '/admin/audit/verify';

/** The page's path (a useResource key): the filters, empty ones left out, and the cursor of the page before. */
export function auditPath(filter: AuditFilter, cursor?: string | null): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filter, cursor })) if (value) params.set(key, value);
  const query = params.toString();
  return `/admin/audit${query ? `?${query}` : ''}`;
}

export const getAuditPage = (filter: AuditFilter, cursor: string | null) => request<AuditPage>(auditPath(filter, cursor));

/** Downloads the export (the API needs the Bearer token, so the browser cannot just follow a link). */
export async function downloadAudit(filter: AuditFilter, format: 'jsonl' | 'csv'): Promise<void> {
  const query = Object.fromEntries(Object.entries({ ...filter, format }).filter(([, v]) => v));
  const blob = await request<Blob>('/admin/audit/export', { query, parse: 'blob', timeout: TIMEOUTS.long });
  saveBlob(blob, `audit-${new Date().toISOString().slice(0, 10)}.${format}`);
}

export type SpendStatus = 'no_limit' | 'ok' | 'near' | 'over';
export type UserSpend = {
  month: string; user_id: number; email: string; spend_cents: number; limit_cents: number; status: SpendStatus;
  top_agents: { agent_id: number | null; name: string; spend_cents: number }[];
};
export type SpendReport = { month: string; users: UserSpend[] };

export const spendPath = (month: string) => `/admin/spend?month=${month}`;

/** Downloads the spend report of the last `months` months up to `month` as CSV. */
export async function downloadSpend(month: string, months: number): Promise<void> {
  const blob = await request<Blob>('/admin/spend/export', { query: { month, months }, parse: 'blob', timeout: TIMEOUTS.long });
  saveBlob(blob, `spend-${month}.csv`);
}
