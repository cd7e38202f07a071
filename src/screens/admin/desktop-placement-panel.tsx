// The agents' desktops on the Ops Dashboard: with several servers on one PostgreSQL, the live instances (web or
// desktop tier, and how many desktops each runs) and which instance holds each agent's desktop; on one server,
// the desktops running on it. A lease whose holder stopped renewing it is marked stale (it is taken over next). A
// desktop frozen while idle says Sleeping.
import { adminDesktopsPath, type DesktopPlacements } from '../../lib/admin-api.ts';
import { Link } from '../../lib/router.ts';
import { useResource } from '../../lib/use-resource.ts';
import { ADMIN_REFRESH_MS } from './admin-dashboard.tsx';
import { LoadError } from './load-error.tsx';

export function DesktopPlacementPanel() {
  const { data, error } = useResource<DesktopPlacements>(adminDesktopsPath, { refreshInterval: ADMIN_REFRESH_MS });
  return (
    <section className="admin-section desktop-placements" aria-labelledby="desktop-placements-heading">
      <h2 className="admin-heading" id="desktop-placements-heading">Desktops</h2>
      {error && <LoadError text="Failed to load desktops" error={error} />}
      {!data && !error && <p className="muted" role="status">Loading desktops...</p>}
      {data && data.instances.length > 0 && (
        <ul className="desktop-instances" aria-label="Instances">
          {data.instances.map((i) => (
            <li key={i.id}>
              <strong>{i.id}</strong>
              {i.id === data.instance_id && ' (this one)'}
              <span className="muted"> · {i.address} · {i.desktop_host ? `${i.desktops} desktop${i.desktops === 1 ? '' : 's'}` : 'web tier'}</span>
            </li>
          ))}
        </ul>
      )}
      {data && data.placements.length === 0 && <p className="muted">No desktop is running.</p>}
      {data && data.placements.length > 0 && (
        <table className="data-table admin-table" aria-label="Desktop placements">
          <thead>
            <tr><th scope="col">Agent</th><th scope="col">Instance</th></tr>
          </thead>
          <tbody>
            {data.placements.map((p) => (
              <tr key={p.agent_id}>
                <td>
                  <Link href={`/admin/agents/${p.agent_id}`}>{p.agent_name ?? `Agent ${p.agent_id}`}</Link>
                  {p.sleeping && <span className="badge sleeping-badge">Sleeping</span>}
                </td>
                <td>{p.instance_id ?? 'this server'}{p.stale && <span className="badge"> stale</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
