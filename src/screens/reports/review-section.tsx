// 'Entries to review' (spec §2): the newest 50 entries waiting for review, 20 a page. A row opens
// its report; 'Mark reviewed' takes the entry off the list (the way a user clears it).
import { useState } from 'react';
import { detailOr, normalizeError } from '../../lib/http.ts';
import { markReviewed, REVIEW_PAGE_SIZE, reviewPath, type ReviewEntry } from '../../lib/reports-api.ts';
import { Link, navigate } from '../../lib/router.ts';
import { useResource } from '../../lib/use-resource.ts';
import { pageCount, Pager } from '../../ui/pager.tsx';
import { formatDateTime } from '../../ui/trace-format.ts';
import { cut, percent, REVIEW_DESCRIPTION_CHARS } from './format.ts';
import { TableHead } from './table-head.tsx';

export function ReviewSection() {
  const { data, error, mutate } = useResource<ReviewEntry[]>(reviewPath);
  const [page, setPage] = useState(1);
  const [busy, setBusy] = useState<number | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const entries = data ?? [];
  const totalPages = pageCount(entries.length, REVIEW_PAGE_SIZE);
  const shown = Math.min(page, totalPages);
  const rows = entries.slice((shown - 1) * REVIEW_PAGE_SIZE, shown * REVIEW_PAGE_SIZE);

  const review = async (id: number) => {
    setBusy(id);
    setFailure(null);
    try {
      await markReviewed(id);
      await mutate((current) => (current ?? []).filter((e) => e.id !== id));
      void mutate();
    } catch (err) {
      setFailure(normalizeError(err).detail);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="reports-section" aria-labelledby="review-title">
      <h2 id="review-title" className="reports-heading">Entries to review</h2>
      {error && <p className="error-text" role="alert">{detailOr(error, 'Failed to fetch reports')}</p>}
      {failure && <p className="error-text" role="alert">{failure}</p>}
      {!data && !error && <p className="muted" role="status">Loading…</p>}
      {data && entries.length === 0 && <p className="muted">No entries need review.</p>}
      {data && entries.length > 0 && (
        <>
          <div className="table-scroll">
            <table className="data-table">
              <TableHead columns={['Created', 'Report', 'Title', 'Description', { label: 'Completion', numeric: true }, { label: 'Actions', hidden: true }]} />
              <tbody>
                {rows.map((e) => (
                  <tr key={e.id} className="reports-row" onClick={() => navigate(`/reports/${e.report_id}`)}>
                    <td className="reports-time"><time dateTime={e.created_at}>{formatDateTime(e.created_at)}</time></td>
                    <td>
                      <Link href={`/reports/${e.report_id}`} onClick={(ev) => ev.stopPropagation()}>
                        {e.report_title} <span className="muted">#{e.report_id}</span>
                      </Link>
                    </td>
                    <td>{e.title}</td>
                    <td className="reports-description" title={e.description || undefined}>{cut(e.description, REVIEW_DESCRIPTION_CHARS)}</td>
                    <td data-numeric>{percent(e.completion_rate)}</td>
                    <td className="reports-actions">
                      <button
                        type="button"
                        className="button button-small"
                        disabled={busy === e.id}
                        aria-label={`Mark reviewed: "${e.title}"`}
                        onClick={(ev) => {
                          ev.stopPropagation();
                          void review(e.id);
                        }}
                      >
                        Mark reviewed
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={shown} totalPages={totalPages} onPage={setPage} label="Pages of entries to review" />
        </>
      )}
    </section>
  );
}
