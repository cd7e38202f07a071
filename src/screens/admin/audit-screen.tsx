// The audit trail (/admin/audit): the chain's verification at the top, filters, the events newest first as
// one sentence each (opening to their detail), 50 at a time with "Load more", and the export buttons.
import { useMemo, useState, type FormEvent } from 'react';
import {
  AUDIT_VERIFY_PATH, auditPath, downloadAudit, getAuditPage, type AuditEvent, type AuditFilter, type AuditPage, type AuditVerdict,
} from '../../lib/audit-api.ts';
import type { ApiError } from '../../lib/http.ts';
import { navigate, useLocation } from '../../lib/router.ts';
import { useTitle } from '../../lib/title.tsx';
import { useIsAdmin } from '../../lib/use-is-admin.ts';
import { useResource } from '../../lib/use-resource.ts';
import { Forbidden } from '../error-pages/error-pages.tsx';
import { actorPhrase, auditSentence } from './audit-sentence.ts';
import { LoadError } from './load-error.tsx';

const TARGET_TYPES = ['user', 'agent', 'thread', 'message', 'schedule', 'recording', 'audit'];
const FILTER_KEYS = ['actor', 'action', 'target_type', 'target_id', 'since', 'until'] as const;

/** The filters live in the page's URL (the same query the API takes), so a filtered view can be reloaded and shared. */
function filterOf(search: string): AuditFilter {
  const params = new URLSearchParams(search);
  return Object.fromEntries(FILTER_KEYS.flatMap((key) => (params.get(key) ? [[key, params.get(key)!]] : [])));
}

/** A date input's value for a filter's instant: the local day it falls on (`until` is the end of its day, hence -1 ms). */
function dayOf(iso: string | undefined, before = 0): string | undefined {
  if (!iso) return undefined;
  const d = new Date(new Date(iso).getTime() - before);
  return Number.isNaN(d.getTime()) ? undefined : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export default function AuditScreen() {
  const isAdmin = useIsAdmin();
  const { search } = useLocation();
  const filter = useMemo(() => filterOf(search), [search]);
  const [more, setMore] = useState<{ key: string; events: AuditEvent[]; cursor: string | null } | null>(null);
  const key = auditPath(filter);
  const page = useResource<AuditPage>(isAdmin ? key : null);
  const verdict = useResource<AuditVerdict>(isAdmin ? AUDIT_VERIFY_PATH : null);
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  useTitle('Audit trail');
  if (!isAdmin) return <Forbidden />;

  // Pages loaded with "Load more" belong to the filter they were loaded under.
  const extra = more?.key === key ? more : null;
  const events = [...(page.data?.events ?? []), ...(extra?.events ?? [])];
  const cursor = extra ? extra.cursor : page.data?.next_cursor ?? null;

  const apply = (ev: FormEvent<HTMLFormElement>) => {
    ev.preventDefault();
    const form = new FormData(ev.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    const day = (name: string, after = 0) => {
      const v = text(name);
      return v ? new Date(new Date(`${v}T00:00`).getTime() + after).toISOString() : undefined;
    };
    navigate(auditPath({
      actor: text('actor'), action: text('action'), target_type: text('target_type'), target_id: text('target_id'),
      since: day('since'), until: day('until', 86_400_000),
    }));
    setMore(null);
  };
  const loadMore = async () => {
    if (!cursor) return;
    setBusy('more');
    try {
      const next = await getAuditPage(filter, cursor);
      setMore({ key, events: [...(extra?.events ?? []), ...next.events], cursor: next.next_cursor });
    } catch (err) {
      setActionError((err as ApiError).detail || 'Failed to load events');
    } finally {
      setBusy(null);
    }
  };
  const exportAs = async (format: 'jsonl' | 'csv') => {
    setBusy(format);
    setActionError(null);
    try {
      await downloadAudit(filter, format);
    } catch (err) {
      setActionError((err as ApiError).detail || 'Export failed');
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="admin-page audit-page">
      <VerifyBanner verdict={verdict.data} error={verdict.error} />
      <form key={search} className="audit-filters" aria-label="Filter events" onSubmit={apply}>
        <label>Actor<input name="actor" placeholder="e-mail, user id or system" defaultValue={filter.actor} /></label>
        <label>Action<input name="action" placeholder="mail. or agent.delete" defaultValue={filter.action} /></label>
        <label>
          Target
          <select name="target_type" defaultValue={filter.target_type ?? ''}>
            <option value="">Any</option>
            {TARGET_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </label>
        <label>Target id<input name="target_id" inputMode="numeric" defaultValue={filter.target_id} /></label>
        <label>From<input name="since" type="date" defaultValue={dayOf(filter.since)} /></label>
        <label>To<input name="until" type="date" defaultValue={dayOf(filter.until, 1)} /></label>
        <div className="audit-filter-actions">
          <button type="submit" className="button">Apply</button>
          <button type="button" className="button" disabled={!!busy} onClick={() => exportAs('csv')}>
            {busy === 'csv' ? 'Exporting...' : 'Export CSV'}
          </button>
          <button type="button" className="button" disabled={!!busy} onClick={() => exportAs('jsonl')}>
            {busy === 'jsonl' ? 'Exporting...' : 'Export JSON lines'}
          </button>
        </div>
      </form>
      {actionError && <p className="form-error" role="alert">{actionError}</p>}
      {page.error && <LoadError text="Failed to load events" error={page.error} />}
      {!page.data && !page.error && <p className="muted" role="status">Loading events...</p>}
      {page.data && events.length === 0 && <p className="muted">No events found</p>}
      {events.length > 0 && (
        <ol className="audit-list" aria-label="Events" aria-busy={page.isValidating || undefined}>
          {events.map((e) => <EventItem key={e.id} event={e} />)}
        </ol>
      )}
      {cursor && (
        <button type="button" className="button audit-more" disabled={busy === 'more'} onClick={loadMore}>
          {busy === 'more' ? 'Loading...' : 'Load more'}
        </button>
      )}
    </div>
  );
}

function VerifyBanner({ verdict, error }: { verdict?: AuditVerdict; error?: ApiError }) {
  if (error) return <LoadError text="Failed to verify the audit trail" error={error} />;
  if (!verdict) return <p className="audit-verify muted" role="status">Verifying the audit trail...</p>;
  if (verdict.ok) {
    return (
      <p className="audit-verify" data-ok role="status">
        Audit trail verified: {verdict.checked.toLocaleString('en-US')} events, none changed or missing.
      </p>
    );
  }
  return (
    <p className="audit-verify" data-bad role="alert">
      The audit trail does not verify: event #{verdict.first_bad_id} was changed, or an event before it is missing
      ({verdict.checked.toLocaleString('en-US')} events check out before it).
    </p>
  );
}

function EventItem({ event: e }: { event: AuditEvent }) {
  const when = new Date(e.at);
  return (
    <li className="audit-event">
      <details>
        <summary>
          <span className="audit-sentence">{auditSentence(e)}</span>
          <time dateTime={e.at} title={e.at}>{when.toLocaleString()}</time>
        </summary>
        <dl className="audit-detail">
          <dt>Event</dt><dd>#{e.id} · {e.action}</dd>
          <dt>When</dt><dd>{e.at}</dd>
          <dt>Actor</dt><dd>{actorPhrase(e)}{e.actor_id !== null && ` (${e.actor_type} #${e.actor_id})`}</dd>
          {e.impersonator_id !== null && <><dt>Impersonated by</dt><dd>{e.impersonator_label} (user #{e.impersonator_id})</dd></>}
          <dt>Target</dt><dd>{e.target_type ? `${e.target_type} #${e.target_id}` : '—'}</dd>
          <dt>Request</dt><dd>{e.request_id ?? '—'}</dd>
          <dt>Client</dt><dd>{[e.ip, e.user_agent].filter(Boolean).join(' · ') || '—'}</dd>
          <dt>Server</dt><dd>{e.instance}</dd>
          <dt>Detail</dt><dd><pre>{JSON.stringify(e.detail, null, 2)}</pre></dd>
          <dt>Hash</dt><dd className="audit-hash">{e.hash}</dd>
        </dl>
      </details>
    </li>
  );
}
