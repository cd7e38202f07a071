// An endpoint's deliveries, newest first: what was sent, how the receiver answered and why an attempt failed, each
// with Redeliver (a new delivery of the same event). While one is pending the log is read again every few seconds,
// and once none is, the endpoint list too (its failing or disabled state may have changed meanwhile).
import { useEffect, useRef, useState } from 'react';
import { detailOr } from '../../../lib/http.ts';
import type { WebhookDelivery, WebhookDeliveryPage, WebhookEndpoint } from '../../../lib/types.ts';
import { mutate, useResource } from '../../../lib/use-resource.ts';
import { deliveriesPath, eventLabel, redeliver, WEBHOOKS_PATH } from '../../../lib/webhooks-api.ts';
import { formatDateTime, formatTime } from '../../../ui/trace-format.ts';

/** ms between reads while a delivery is pending; the first retry comes within a minute. */
export const PENDING_POLL_MS = 3000;

const STATUS_LABELS: Record<string, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };

type DeliveryLogProps = { endpoint: WebhookEndpoint; id: string };

export function DeliveryLog({ endpoint, id }: DeliveryLogProps) {
  const [polling, setPolling] = useState(false);
  const log = useResource<WebhookDeliveryPage>(deliveriesPath(endpoint.id), { refreshInterval: polling ? PENDING_POLL_MS : 0 });
  const [redelivering, setRedelivering] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const pending = log.data?.deliveries.some((d) => d.status === 'pending') ?? false;
  const wasPending = useRef(false);
  useEffect(() => {
    setPolling(pending);
    if (wasPending.current && !pending) void mutate(WEBHOOKS_PATH);
    wasPending.current = pending;
  }, [pending]);

  const again = async (delivery: WebhookDelivery) => {
    setRedelivering(delivery.id);
    setError(null);
    try {
      await redeliver(delivery.id);
      await log.mutate();
    } catch (err) {
      setError(detailOr(err, 'Failed to redeliver the event'));
    } finally {
      setRedelivering(null);
    }
  };

  const page = log.data;
  return (
    <div id={id} className="webhook-log">
      {error && <p className="form-error" role="alert">{error}</p>}
      {log.error && <p className="error-text" role="alert">Error loading deliveries: {log.error.detail}</p>}
      {!page && !log.error && <p className="muted" role="status">Loading deliveries...</p>}
      {page && page.deliveries.length === 0 && <p className="muted">No deliveries yet. Send a test event to try the endpoint.</p>}
      {page && page.deliveries.length > 0 && (
        <div className="table-scroll">
          <table className="data-table webhook-deliveries" aria-label={`Deliveries to ${endpoint.url}`}>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Response</th>
                <th scope="col">Latency</th>
                <th scope="col">Attempt</th>
                <th scope="col">Time</th>
                <th scope="col">Error</th>
                <th scope="col"><span className="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {page.deliveries.map((d) => (
                <tr key={d.id} className="webhook-delivery" data-status={d.status}>
                  <td><code className="webhook-event-type" title={eventLabel(d.type)}>{d.type}</code></td>
                  <td>
                    <span className="badge webhook-delivery-status" data-status={d.status}>{STATUS_LABELS[d.status] ?? d.status}</span>
                    {d.status === 'pending' && d.next_attempt_at && (
                      <span className="muted webhook-next"> next try <time dateTime={d.next_attempt_at}>{formatTime(d.next_attempt_at)}</time></span>
                    )}
                  </td>
                  <td>{d.response_code ?? <span className="muted">None</span>}</td>
                  <td>{d.latency_ms === null ? <span className="muted">None</span> : `${d.latency_ms} ms`}</td>
                  <td>{d.attempt}</td>
                  <td><time dateTime={d.created_at}>{formatDateTime(d.created_at)}</time></td>
                  <td className="webhook-delivery-error">{d.error}</td>
                  <td>
                    <button type="button" className="button button-small" disabled={redelivering === d.id}
                      aria-label={`Redeliver ${d.type} of ${formatDateTime(d.created_at)}`} onClick={() => void again(d)}>
                      {redelivering === d.id ? 'Redelivering...' : 'Redeliver'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page && page.total > page.deliveries.length && (
        <p className="muted webhook-log-total">The newest {page.deliveries.length} of {page.total} deliveries.</p>
      )}
    </div>
  );
}
