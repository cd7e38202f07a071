// The Ops Dashboard (/admin/ops, also /admin/threads; spec §2): every thread waiting for an admin to
// approve an outbound message or for its person (issue 19, marked 'Waiting for a person'), the one waiting
// longest first, the data directory's free space, and where the agents' desktops run.
// Loaded only for admins (spec §6).
import { detailOr } from '../../lib/http.ts';
import { approvalThreadsPath, type ThreadNeedingApproval } from '../../lib/admin-api.ts';
import { useTitle } from '../../lib/title.tsx';
import { useIsAdmin } from '../../lib/use-is-admin.ts';
import { useResource } from '../../lib/use-resource.ts';
import { Forbidden } from '../error-pages/error-pages.tsx';
import { AuditLink } from './audit-link.tsx';
import { ADMIN_REFRESH_MS } from './admin-dashboard.tsx';
import { AdminTable, type Column } from './admin-table.tsx';
import { DesktopPlacementPanel } from './desktop-placement-panel.tsx';
import { DiskSpacePanel } from './disk-space-panel.tsx';
import { RelativeTime } from './relative-time-label.tsx';

const COLUMNS: Column<ThreadNeedingApproval>[] = [
  {
    label: 'Thread',
    cell: (t) => (
      <>
        {t.thread_name.trim() || String(t.id)}
        {t.needs_help && <span className="badge waiting-badge" title={t.needs_help.question}>Waiting for a person</span>}
      </>
    ),
  },
  { label: 'Agent', cell: (t) => t.agent_name },
  { label: 'Age', cell: (t) => <RelativeTime value={t.updated_at} /> },
];

export default function OpsDashboard() {
  const isAdmin = useIsAdmin();
  const { data, error, isValidating } = useResource<ThreadNeedingApproval[]>(isAdmin ? approvalThreadsPath : null, {
    refreshInterval: ADMIN_REFRESH_MS,
  });
  useTitle('Ops Dashboard');
  if (!isAdmin) return <Forbidden />;
  return (
    <div className="admin-page">
      <AuditLink />
      {error && (
        <p className="form-error admin-error" role="alert">{detailOr(error, 'Failed to load threads requiring approval')}</p>
      )}
      {!data && !error && <p className="muted" role="status">Loading threads...</p>}
      {data && data.length === 0 && <p className="muted">No threads found.</p>}
      {data && data.length > 0 && (
        <AdminTable label="Threads requiring approval" columns={COLUMNS} rows={data} href={(t) => `/admin/threads/${t.id}`} busy={isValidating} />
      )}
      <DiskSpacePanel />
      <DesktopPlacementPanel />
    </div>
  );
}
