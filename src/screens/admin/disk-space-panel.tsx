// The data directory's disk on the Ops Dashboard: how full it is, what is free, and the reserve kept for the
// database. Below the reserve the server refuses new uploads and mail attachments (507) until space is freed,
// which the panel says in words, not only in colour.
import { adminStoragePath, type DiskSpace } from '../../lib/admin-api.ts';
import { formatBytes } from '../../lib/format-bytes.ts';
import { useResource } from '../../lib/use-resource.ts';
import { ADMIN_REFRESH_MS } from './admin-dashboard.tsx';
import { LoadError } from './load-error.tsx';

export function DiskSpacePanel() {
  const { data, error } = useResource<DiskSpace>(adminStoragePath, { refreshInterval: ADMIN_REFRESH_MS });
  const usedShare = data && data.total_bytes > 0 ? Math.min(1, Math.max(0, 1 - data.free_bytes / data.total_bytes)) : 0;
  return (
    <section className="admin-section disk-space" aria-labelledby="disk-space-heading" data-low={data?.low || undefined}>
      <h2 className="admin-heading" id="disk-space-heading">Data directory</h2>
      {error && <LoadError text="Failed to load disk space" error={error} />}
      {!data && !error && <p className="muted" role="status">Loading disk space...</p>}
      {data && (
        <>
          <div
            className="disk-space-bar" role="meter" aria-label="Disk used" aria-valuemin={0} aria-valuemax={100}
            aria-valuenow={Math.round(usedShare * 100)} aria-valuetext={`${Math.round(usedShare * 100)}% used`}
          >
            <span style={{ width: `${usedShare * 100}%` }} />
          </div>
          <p className="disk-space-figures">
            <strong>{formatBytes(data.free_bytes)} free</strong> of {formatBytes(data.total_bytes)}
            <span className="muted"> · {formatBytes(data.reserve_bytes)} kept for the database</span>
          </p>
          {data.low && (
            <p className="disk-space-low" role="alert">
              Free space is below the reserve: new uploads and mail attachments are refused until space is freed.
            </p>
          )}
        </>
      )}
    </section>
  );
}
