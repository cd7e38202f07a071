// One endpoint in the list: where it sends, which events of which agents, its state, the secret by its prefix only,
// and its actions; its deliveries log opens below it (Send test event opens it too, to show the delivery).
import { useId, useState } from 'react';
import type { WebhookEndpoint } from '../../../lib/types.ts';
import { eventLabel } from '../../../lib/webhooks-api.ts';
import { formatDateTime } from '../../../ui/trace-format.ts';
import { DeliveryLog } from './delivery-log.tsx';
import { endpointStatus } from './endpoint-status.ts';
import { useEndpointActions } from './use-endpoint-actions.ts';

type EndpointCardProps = {
  endpoint: WebhookEndpoint;
  onSaved: (endpoint: WebhookEndpoint) => void;
  onDeleted: (id: number) => void;
};

export function EndpointCard({ endpoint: e, onSaved, onDeleted }: EndpointCardProps) {
  const logId = useId();
  const [logOpen, setLogOpen] = useState(false);
  const { busy, error, toggle, remove, test } = useEndpointActions(e, { onSaved, onDeleted, onTested: () => setLogOpen(true) });
  const status = endpointStatus(e);
  const agent = e.agent_id === null ? 'All agents' : (e.agent_name ?? `Agent #${e.agent_id}`);

  return (
    <li className="webhook-card" data-status={status.tone}>
      <h3 className="webhook-url">{e.url}</h3>
      <dl className="webhook-facts">
        <dt>Events</dt>
        <dd>
          <ul className="webhook-event-list">
            {e.events.map((type) => <li key={type} title={type}>{eventLabel(type)}</li>)}
          </ul>
        </dd>
        <dt>Agent</dt>
        <dd>{agent}</dd>
        <dt>Status</dt>
        <dd className="webhook-status-cell">
          <span className="badge webhook-status" data-status={status.tone}>{status.label}</span>
          {status.reason && <span className="webhook-reason">{status.reason}</span>}
        </dd>
        <dt>Secret</dt>
        <dd><code className="webhook-secret-prefix">{e.secret_prefix}…</code></dd>
        <dt>Created</dt>
        <dd><time dateTime={e.created_at}>{formatDateTime(e.created_at)}</time></dd>
      </dl>
      {error && <p className="form-error" role="alert">{error}</p>}
      <div className="webhook-actions">
        <button type="button" className="button button-small" aria-expanded={logOpen} aria-controls={logOpen ? logId : undefined}
          aria-label={`Deliveries of ${e.url}`} onClick={() => setLogOpen((open) => !open)}>
          Deliveries
        </button>
        <button type="button" className="button button-small" disabled={busy === 'test'} aria-label={`Send test event to ${e.url}`}
          onClick={() => void test()}>
          {busy === 'test' ? 'Sending...' : 'Send test event'}
        </button>
        <button type="button" className="button button-small" disabled={busy === 'toggle'} aria-label={`${e.enabled ? 'Disable' : 'Enable'} ${e.url}`}
          onClick={() => void toggle()}>
          {busy === 'toggle' ? 'Saving...' : e.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" className="button button-small webhook-delete" disabled={busy === 'delete'} aria-label={`Delete ${e.url}`}
          onClick={() => void remove()}>
          {busy === 'delete' ? 'Deleting...' : 'Delete'}
        </button>
      </div>
      {logOpen && <DeliveryLog endpoint={e} id={logId} />}
    </li>
  );
}
