// The Admin agent page (/admin/agents/{id}, spec §2): a Back button and the agent's threads with
// whether each runs, its place in the queue, whether it waits for approval, and when it changed.
// A row opens the Admin thread page.
import { adminThreadsPath, type AdminAgentThreads, type AdminThread } from '../../lib/admin-api.ts';
import { navigate } from '../../lib/router.ts';
import { useTitle } from '../../lib/title.tsx';
import { useIsAdmin } from '../../lib/use-is-admin.ts';
import { useResource } from '../../lib/use-resource.ts';
import { Forbidden } from '../error-pages/error-pages.tsx';
import { ADMIN_REFRESH_MS } from './admin-dashboard.tsx';
import { AdminTable, type Column } from './admin-table.tsx';
import { LoadError } from './load-error.tsx';
import { RelativeTime } from './relative-time-label.tsx';
import { runningLabel, threadTitle } from './thread-labels.ts';

const COLUMNS: Column<AdminThread>[] = [
  { label: 'Name', cell: threadTitle },
  { label: 'Running/Idle', cell: (t) => <span className="admin-status" data-running={t.thread_running || undefined}>{runningLabel(t)}</span> },
  { label: 'Scheduled', numeric: true, cell: (t) => t.schedule_sequence ?? '' },
  { label: 'Approval', cell: (t) => (t.approval_required ? <span className="badge admin-approval">Needs approval</span> : '') },
  { label: 'Updated', cell: (t) => <RelativeTime value={t.updated_at} /> },
];

export default function AdminAgentScreen({ id }: { id: number }) {
  const isAdmin = useIsAdmin();
  const { data, error, isValidating } = useResource<AdminAgentThreads>(isAdmin ? adminThreadsPath(id) : null, {
    refreshInterval: ADMIN_REFRESH_MS,
  });
  useTitle(data ? data.agent.name : 'Admin agent');
  if (!isAdmin) return <Forbidden />;
  return (
    <div className="admin-page">
      <div className="admin-page-bar">
        <button type="button" className="button button-small" onClick={() => navigate('/admin')}>Back</button>
        {data && <p className="muted admin-owner">{data.agent.owner_email}</p>}
        {data?.agent.desktop_instance && <p className="muted admin-desktop-instance">Desktop on instance {data.agent.desktop_instance}</p>}
      </div>
      {error && <LoadError text="Failed to load threads" error={error} />}
      {!data && !error && <p className="muted" role="status">Loading threads...</p>}
      {data && data.threads.length === 0 && <p className="muted">No threads found.</p>}
      {data && data.threads.length > 0 && (
        <AdminTable label="Threads" columns={COLUMNS} rows={data.threads} href={(t) => `/admin/threads/${t.id}`} busy={isValidating} />
      )}
    </div>
  );
}
