// Webhooks settings (/settings/webhooks, issue 46): endpoints that get the user's agents' events as signed POSTs.
// The list names an endpoint's secret by its prefix only; the whole secret is shown once, when made
// (webhook-form.tsx). Each endpoint has its deliveries log, a test event, on/off and Delete (which asks first).
import { useState } from 'react';
import { AGENTS_PATH } from '../../../lib/api.ts';
import { useTitle } from '../../../lib/title.tsx';
import type { AgentSummary, WebhookEndpoint } from '../../../lib/types.ts';
import { useResource } from '../../../lib/use-resource.ts';
import { WEBHOOKS_PATH } from '../../../lib/webhooks-api.ts';
import { SettingsLayout } from '../settings-layout.tsx';
import { EndpointCard } from './endpoint-card.tsx';
import { WebhookForm } from './webhook-form.tsx';

export default function WebhooksScreen() {
  useTitle('Settings');
  const list = useResource<WebhookEndpoint[]>(WEBHOOKS_PATH);
  const agents = useResource<AgentSummary[]>(AGENTS_PATH);
  const [creating, setCreating] = useState(false);

  // The server's answers replace the cached copy at once (no refetch of the whole list).
  const created = (endpoint: WebhookEndpoint) => void list.mutate((current) => [endpoint, ...(current ?? [])]); // newest first
  const saved = (endpoint: WebhookEndpoint) => void list.mutate((current) => (current ?? []).map((e) => (e.id === endpoint.id ? endpoint : e)));
  const deleted = (id: number) => void list.mutate((current) => (current ?? []).filter((e) => e.id !== id));

  const endpoints = list.data;
  return (
    <SettingsLayout>
      <div className="webhooks">
        <div className="webhooks-header">
          <div>
            <h2 className="webhooks-heading">Webhooks</h2>
            <p className="muted webhooks-intro">
              Your agents' events, POSTed as JSON to your address and signed with the endpoint's secret (Standard Webhooks).
            </p>
          </div>
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>New endpoint</button>
        </div>
        {list.error && <p className="error-text" role="alert">Error loading endpoints: {list.error.detail}</p>}
        {!endpoints && !list.error && <p className="muted" role="status">Loading endpoints...</p>}
        {endpoints && endpoints.length === 0 && <p className="muted">No endpoints yet</p>}
        {endpoints && endpoints.length > 0 && (
          <ul className="webhook-list" aria-label="Webhook endpoints">
            {endpoints.map((endpoint) => <EndpointCard key={endpoint.id} endpoint={endpoint} onSaved={saved} onDeleted={deleted} />)}
          </ul>
        )}
        {creating && (
          <WebhookForm agents={agents.data} agentsError={agents.error?.detail} onClose={() => setCreating(false)} onCreated={created} />
        )}
      </div>
    </SettingsLayout>
  );
}
