// The Admin thread page (/admin/threads/{id}, spec §2): the thread's Communication list (mail in,
// the agent's messages out, with approval actions) and its History (the steps), and deleting it.
import { useState } from 'react';
import {
  adminAgentsPath, adminThreadPath, adminThreadsPath, approvalThreadsPath, commMessagesPath, deleteAdminThread,
  type AdminThreadDetail, type CommMessage,
} from '../../lib/admin-api.ts';
import { normalizeError } from '../../lib/http.ts';
import { Link, navigate } from '../../lib/router.ts';
import { useTitle } from '../../lib/title.tsx';
import { useIsAdmin } from '../../lib/use-is-admin.ts';
import { pauseTitle } from '../agent/supervision/handback.ts';
import { mutate, useResource } from '../../lib/use-resource.ts';
import { Forbidden } from '../error-pages/error-pages.tsx';
import { CommMessageItem } from './comm-message-item.tsx';
import { HistoryList } from './history-list.tsx';
import { LoadError } from './load-error.tsx';
import { RelativeTime } from './relative-time-label.tsx';
import { runningLabel, threadTitle } from './thread-labels.ts';

/** Queued mail is sent within seconds: poll quickly until it settles, slowly otherwise (new drafts, replies). */
export const SENDING_REFRESH_MS = 2000;
export const THREAD_REFRESH_MS = 10_000;

export default function AdminThreadScreen({ id }: { id: number }) {
  const isAdmin = useIsAdmin();
  const thread = useResource<AdminThreadDetail>(isAdmin ? adminThreadPath(id) : null, {
    refreshInterval: THREAD_REFRESH_MS,
  });
  const [sending, setSending] = useState(false);
  const comms = useResource<CommMessage[]>(isAdmin ? commMessagesPath(id) : null, {
    refreshInterval: sending ? SENDING_REFRESH_MS : THREAD_REFRESH_MS,
  });
  // Derived during render: once a message is queued, poll fast until it is sent (success or dead).
  const queued = !!comms.data?.some((m) => m.outbound_state === 'queued');
  if (queued !== sending) setSending(queued);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  const data = thread.data;
  const back = data ? `/admin/agents/${data.agent_id}` : '/admin';
  useTitle(data ? threadTitle(data) : 'Admin thread');

  async function remove() {
    if (!window.confirm('Delete this thread?')) return;
    setDeleting(true);
    setDeleteError(null);
    try {
      await deleteAdminThread(id);
      // The lists that showed the thread load again when opened, even within their freshness window.
      if (data) void mutate(adminThreadsPath(data.agent_id));
      void mutate(adminAgentsPath);
      void mutate(approvalThreadsPath);
      navigate(back, { replace: true });
    } catch (err) {
      setDeleteError(normalizeError(err).detail);
      setDeleting(false);
    }
  }

  // An approval action changes the thread's approval flag, so the overviews are stale too.
  const changed = async () => {
    if (data) void mutate(adminThreadsPath(data.agent_id));
    void mutate(adminAgentsPath);
    void mutate(approvalThreadsPath);
    await Promise.all([comms.mutate(), thread.mutate()]);
  };

  if (!isAdmin) return <Forbidden />;
  return (
    <div className="admin-page admin-thread">
      <div className="admin-page-bar">
        <button type="button" className="button button-small" onClick={() => navigate(back)}>Back</button>
        {data && (
          <p className="admin-thread-meta">
            <span>Agent <Link href={`/admin/agents/${data.agent_id}`}>{data.agent_name}</Link></span>
            <span className="muted">{data.owner_email}</span>
            <span className="admin-status" data-running={data.thread_running || undefined}>{runningLabel(data)}</span>
            {data.schedule_sequence !== null && <span>Scheduled #{data.schedule_sequence}</span>}
            {data.approval_required && <span className="badge admin-approval">Needs approval</span>}
            {data.needs_help && <span className="badge waiting-badge">Waiting for a person</span>}
            <span className="muted">Updated <RelativeTime value={data.updated_at} /></span>
          </p>
        )}
        {data && (
          <button type="button" className="button button-small button-danger admin-delete" disabled={deleting} onClick={() => void remove()}>
            {deleting ? 'Deleting...' : 'Delete thread'}
          </button>
        )}
      </div>
      {deleteError !== null && (
        <div className="form-error admin-error" role="alert">
          <p>Failed to delete thread</p>
          {deleteError && deleteError !== 'Failed to delete thread' && <p className="admin-error-detail">{deleteError}</p>}
        </div>
      )}
      {data?.error_message && <p className="form-error admin-error">{data.error_message}</p>}
      {data?.needs_help && (
        <div className="help-request admin-help" role="status" data-reason={data.needs_help.reason}>
          <p className="help-request-title">{pauseTitle(data.needs_help.reason)} · <RelativeTime value={data.needs_help.asked_at} /></p>
          <p className="message-text help-request-question">{data.needs_help.question}</p>
        </div>
      )}

      <section className="admin-section" aria-labelledby="comm-title">
        <h2 id="comm-title" className="admin-heading">Communication</h2>
        {comms.error && <LoadError text="Failed to load messages" error={comms.error} />}
        {!comms.data && !comms.error && <p className="muted" role="status">Loading messages...</p>}
        {comms.data && comms.data.length === 0 && <p className="muted">No messages.</p>}
        {comms.data && comms.data.length > 0 && (
          <ul className="comm-list" aria-label="Communication">
            {comms.data.map((m) => <CommMessageItem key={m.id} message={m} onChanged={changed} />)}
          </ul>
        )}
      </section>

      <section className="admin-section" aria-labelledby="history-title">
        <h2 id="history-title" className="admin-heading">History</h2>
        {thread.error && <LoadError text="Failed to load threads" error={thread.error} />}
        {!data && !thread.error && <p className="muted" role="status">Loading history...</p>}
        {data && <HistoryList steps={data.steps} total={data.total_steps} threadRunning={data.thread_running} />}
      </section>
    </div>
  );
}
