// The Admin Dashboard (/admin, spec §2): every user's agents with their state, queued threads,
// threads waiting for approval and last activity, the most recently active first. A row opens
// the Admin agent page.
import { adminAgentsPath, type AdminAgent } from '../../lib/admin-api.ts';
import { useTitle } from '../../lib/title.tsx';
import { useIsAdmin } from '../../lib/use-is-admin.ts';
import { useResource } from '../../lib/use-resource.ts';
import { Forbidden } from '../error-pages/error-pages.tsx';
import { AuditLink } from './audit-link.tsx';
import { SpendPanel } from './spend-panel.tsx';
import { AdminTable, type Column } from './admin-table.tsx';
import { LoadError } from './load-error.tsx';
import { RelativeTime } from './relative-time-label.tsx';

/** As the agents grid (spec §9), skipped while the tab is hidden. */
export const ADMIN_REFRESH_MS = 30_000;

/** On while the agent may work its queue (play or fast), Off when stopped. */
export const agentState = (agent: Pick<AdminAgent, 'target_run_state'>) => (agent.target_run_state === 'stop' ? 'Off' : 'On');

const COLUMNS: Column<AdminAgent>[] = [
  { label: 'Name', cell: (a) => a.name },
  {
    label: 'State',
    cell: (a) => (
      <span className="admin-state" data-on={agentState(a) === 'On' || undefined} title={a.agent_running ? 'Working now' : undefined}>
        {agentState(a)}
      </span>
    ),
  },
  { label: '# Scheduled', numeric: true, cell: (a) => a.number_scheduled_threads },
  { label: '# Needs Approval', numeric: true, cell: (a) => a.number_threads_requiring_approval },
  { label: 'Last Activity', cell: (a) => <RelativeTime value={a.updated_at} /> },
];

export default function AdminDashboard() {
  const isAdmin = useIsAdmin();
  const { data, error, isValidating } = useResource<AdminAgent[]>(isAdmin ? adminAgentsPath : null, { refreshInterval: ADMIN_REFRESH_MS });
  useTitle('Admin Dashboard');
  if (!isAdmin) return <Forbidden />;
  return (
    <div className="admin-page">
      <AuditLink />
      {error && <LoadError text="Failed to load admin agents" error={error} />}
      {!data && !error && <p className="muted" role="status">Loading agents...</p>}
      {data && data.length === 0 && <p className="muted">No agents found</p>}
      {data && data.length > 0 && (
        <AdminTable label="Agents" columns={COLUMNS} rows={data} href={(a) => `/admin/agents/${a.id}`} busy={isValidating} />
      )}
      <SpendPanel />
    </div>
  );
}
