// Typed calls for the audit trail (/api/admin/audit): pages, verification and the export download.
import { request, TIMEOUTS } from './http.ts';

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
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = `audit-${new Date().toISOString().slice(0, 10)}.${format}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
