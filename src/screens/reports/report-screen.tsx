// One report (/reports/{id}, spec §2): 'Report #id', Back, its title, time, agent and description
// (line breaks kept), and its entries with their completion.
import { detailOr } from '../../lib/http.ts';
import { reportPath, type Report } from '../../lib/reports-api.ts';
import { navigate } from '../../lib/router.ts';
import { useTitle } from '../../lib/title.tsx';
import { useResource } from '../../lib/use-resource.ts';
import { formatDateTime } from '../../ui/trace-format.ts';
import { percent } from './format.ts';
import { TableHead } from './table-head.tsx';

export default function ReportScreen({ id }: { id: number }) {
  useTitle(`Report #${id}`);
  const { data, error } = useResource<Report>(reportPath(id));
  return (
    <div className="reports report-detail">
      <div>
        <button type="button" className="button button-small" onClick={() => navigate('/reports')}>Back</button>
      </div>
      {error && <p className="error-text" role="alert">{detailOr(error, 'Failed to load report')}</p>}
      {!data && !error && <p className="muted" role="status">Loading…</p>}
      {data && (
        <>
          <article className="report-summary">
            <h2 className="report-title">{data.title}</h2>
            <p className="report-meta muted">
              <time dateTime={data.created_at}>{formatDateTime(data.created_at)}</time>
              <span>{data.agent_id === null ? 'Agent deleted' : `Agent #${data.agent_id}`}</span>
            </p>
            {data.description && <p className="report-description">{data.description}</p>}
          </article>
          <section className="reports-section" aria-labelledby="entries-title">
            <h2 id="entries-title" className="reports-heading">Entries</h2>
            {data.entries.length === 0 ? (
              <p className="muted">No entries yet.</p>
            ) : (
              // Focusable: on a phone the table scrolls sideways in its box, and a keyboard must reach that too (axe).
              <div className="table-scroll" tabIndex={0} role="group" aria-labelledby="entries-title">
                <table className="data-table">
                  <TableHead columns={['Created', 'Title', 'Description', { label: 'Completion', numeric: true }]} />
                  <tbody>
                    {data.entries.map((e) => (
                      <tr key={e.id}>
                        <td className="reports-time"><time dateTime={e.created_at}>{formatDateTime(e.created_at)}</time></td>
                        <td>{e.title}</td>
                        <td className="report-entry-description">{e.description || '-'}</td>
                        <td data-numeric>{percent(e.completion_rate)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </div>
  );
}
