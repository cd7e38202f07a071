// The Admin Dashboard's spend report: what each user's agents cost in a month (the traces' estimated cost),
// their top agents, and who is near or over their monthly limit, with a CSV export of the last 12 months.
import { useState } from 'react';
import { downloadSpend, spendPath, type SpendReport, type SpendStatus } from '../../lib/audit-api.ts';
import type { ApiError } from '../../lib/http.ts';
import { useResource } from '../../lib/use-resource.ts';
import { LoadError } from './load-error.tsx';

const STATUS: Record<SpendStatus, string> = { no_limit: 'No limit', ok: 'Within limit', near: 'Near limit', over: 'Over limit' };
const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/** This month and the eleven before it, newest first, as YYYY-MM. */
export function recentMonths(now = new Date(), count = 12): string[] {
  return Array.from({ length: count }, (_, i) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1)).toISOString().slice(0, 7));
}

export function SpendPanel() {
  const months = recentMonths();
  const [month, setMonth] = useState(months[0]);
  const { data, error } = useResource<SpendReport>(spendPath(month));
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | null>(null);
  const flagged = data?.users.filter((u) => u.status === 'near' || u.status === 'over') ?? [];
  const exportCsv = async () => {
    setExporting(true);
    setExportError(null);
    try {
      await downloadSpend(month, 12);
    } catch (err) {
      setExportError((err as ApiError).detail || 'Export failed');
    } finally {
      setExporting(false);
    }
  };
  return (
    <section className="admin-section spend-report" aria-labelledby="spend-heading">
      <div className="admin-page-bar">
        <h2 className="admin-heading" id="spend-heading">Spend by user</h2>
        <label className="spend-month">
          Month
          <select value={month} onChange={(ev) => setMonth(ev.target.value)}>
            {months.map((m) => <option key={m} value={m}>{m}</option>)}
          </select>
        </label>
        <button type="button" className="button" onClick={exportCsv} disabled={exporting}>{exporting ? 'Exporting...' : 'Export CSV'}</button>
      </div>
      {exportError && <p className="form-error" role="alert">{exportError}</p>}
      {error && <LoadError text="Failed to load spend" error={error} />}
      {!data && !error && <p className="muted" role="status">Loading spend...</p>}
      {flagged.length > 0 && (
        <p className="spend-flagged" role="status">
          {flagged.map((u) => `${u.email}: ${usd(u.spend_cents)} of ${usd(u.limit_cents)} (${STATUS[u.status].toLowerCase()})`).join(' · ')}
        </p>
      )}
      {data && data.users.length === 0 && <p className="muted">No spend in {data.month}</p>}
      {data && data.users.length > 0 && (
        // Focusable: on a phone the table scrolls sideways in its box, and a keyboard must reach that too (axe).
        <div className="table-scroll" tabIndex={0} role="group" aria-label={`Spend by user in ${data.month}`}>
          <table className="data-table" aria-label={`Spend by user in ${data.month}`}>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col" data-numeric>Spend</th>
                <th scope="col" data-numeric>Limit</th>
                <th scope="col">Status</th>
                <th scope="col">Top agents</th>
              </tr>
            </thead>
            <tbody>
              {data.users.map((u) => (
                <tr key={u.user_id}>
                  <td>{u.email}</td>
                  <td data-numeric>{usd(u.spend_cents)}</td>
                  <td data-numeric>{u.limit_cents ? usd(u.limit_cents) : '—'}</td>
                  <td><span className="spend-status" data-status={u.status}>{STATUS[u.status]}</span></td>
                  <td>{u.top_agents.map((a) => `${a.name} ${usd(a.spend_cents)}`).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
