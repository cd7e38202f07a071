// 'All reports' (spec §2): newest or oldest first, 20 a page with Prev/Next; a row opens the report.
import { useState } from 'react';
import { detailOr } from '../../lib/http.ts';
import { REPORTS_PAGE_SIZE, reportsPath, type ReportPage, type SortOrder } from '../../lib/reports-api.ts';
import { Link, navigate } from '../../lib/router.ts';
import { useResource } from '../../lib/use-resource.ts';
import { pageCount, Pager } from '../../ui/pager.tsx';
import { formatDateTime } from '../../ui/trace-format.ts';
import { cut, LIST_DESCRIPTION_CHARS } from './format.ts';
import { TableHead } from './table-head.tsx';

export function AllReportsSection() {
  const [order, setOrder] = useState<SortOrder>('desc');
  const [page, setPage] = useState(1);
  // The previous page stays on screen while the next one loads.
  const { data: shown, error, isValidating } = useResource<ReportPage>(reportsPath(page, order), { keepPreviousData: true });
  const totalPages = pageCount(shown?.total_count ?? 0, REPORTS_PAGE_SIZE);

  return (
    <section className="reports-section" aria-labelledby="all-reports-title">
      <div className="reports-section-bar">
        <h2 id="all-reports-title" className="reports-heading">All reports</h2>
        <label className="reports-sort">
          <span>Sort</span>
          <select
            value={order}
            onChange={(e) => {
              setOrder(e.target.value as SortOrder);
              setPage(1);
            }}
          >
            <option value="desc">Newest</option>
            <option value="asc">Oldest</option>
          </select>
        </label>
      </div>
      {error && <p className="error-text" role="alert">{detailOr(error, 'Failed to fetch reports')}</p>}
      {!shown && !error && <p className="muted" role="status">Loading…</p>}
      {shown && (
        <>
          <div className="table-scroll">
            <table className="data-table" aria-busy={isValidating || undefined}>
              <TableHead columns={['Created', 'Title', 'Description', 'Agent']} />
              <tbody>
                {shown.reports.length === 0 && (
                  <tr>
                    <td colSpan={4} className="reports-empty">No reports yet.</td>
                  </tr>
                )}
                {shown.reports.map((r) => (
                  <tr key={r.id} className="reports-row" onClick={() => navigate(`/reports/${r.id}`)}>
                    <td className="reports-time"><time dateTime={r.created_at}>{formatDateTime(r.created_at)}</time></td>
                    <td>
                      <Link href={`/reports/${r.id}`} onClick={(ev) => ev.stopPropagation()}>{r.title}</Link>
                    </td>
                    <td className="reports-description" title={r.description || undefined}>{cut(r.description, LIST_DESCRIPTION_CHARS)}</td>
                    <td>{r.agent_id === null ? '-' : `#${r.agent_id}`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} totalPages={totalPages} onPage={setPage} label="Pages of all reports" />
        </>
      )}
    </section>
  );
}
