// Webhook endpoints as the SPA tests meet them: three of the user's (fine, failing, disabled), two agents, and a fake
// API that keeps them as the server would: PATCH and DELETE change the list, a test event and a redelivery add a
// pending delivery to the endpoint's log (newest first).
import type { WebhookDelivery, WebhookEndpoint } from '../../../src/lib/types.ts';
import { FakeApi, json, USER } from './screen-harness.tsx';

export const ORDERS: WebhookEndpoint = {
  id: 3, url: 'https://example.com/hooks/orders', events: ['run.finished', 'run.failed'], agent_id: null, agent_name: null, enabled: true,
  disabled_reason: null, failing_since: null, secret_prefix: 'whsec_Or3', created_at: '2026-11-20T09:00:00Z',
};
export const ALICE_HOOK: WebhookEndpoint = {
  ...ORDERS, id: 2, url: 'https://hooks.example.net/alice', events: ['run.needs_help'], agent_id: 7, agent_name: 'Alice',
  failing_since: '2026-11-28T10:00:00Z', secret_prefix: 'whsec_Al2',
};
export const OFF: WebhookEndpoint = {
  ...ORDERS, id: 1, url: 'https://old.example.org/in', events: ['billing.limit_reached'], enabled: false,
  disabled_reason: 'Turned off after 3 days of failed deliveries', failing_since: '2026-11-01T08:00:00Z', secret_prefix: 'whsec_Of1',
};
export const AGENTS = [{ id: 7, name: 'Alice' }, { id: 8, name: 'Bob' }];

export const DELIVERED: WebhookDelivery = {
  id: 11, endpoint_id: 3, event_id: 'msg_2a', type: 'run.finished', status: 'delivered', attempt: 1, response_code: 200, latency_ms: 84,
  error: null, created_at: '2026-11-28T12:00:00Z', last_attempt_at: '2026-11-28T12:00:01Z', next_attempt_at: null,
};
export const FAILED: WebhookDelivery = {
  ...DELIVERED, id: 10, event_id: 'msg_1b', type: 'run.failed', status: 'failed', attempt: 5, response_code: 500, latency_ms: 1210,
  error: 'The receiver answered 500', created_at: '2026-11-27T12:00:00Z',
};

export const SECRET = 'whsec_Nw5tK1c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0';

/** The fake server's state and the API around it. */
export function webhookApi(endpoints: WebhookEndpoint[] = [ORDERS, ALICE_HOOK, OFF], log: WebhookDelivery[] = [DELIVERED, FAILED]) {
  const state = { endpoints: endpoints.map((e) => ({ ...e })), deliveries: log.map((d) => ({ ...d })), nextId: 100 };
  const api = new FakeApi(USER).on('GET /api/webhooks', () => state.endpoints).on('GET /api/agents/', () => AGENTS);

  const deliver = (from: WebhookDelivery | { endpoint_id: number; event_id: string; type: string }) => {
    const made: WebhookDelivery = {
      id: state.nextId++, endpoint_id: from.endpoint_id, event_id: from.event_id, type: from.type, status: 'pending', attempt: 0,
      response_code: null, latency_ms: null, error: null, created_at: new Date().toISOString(), last_attempt_at: null,
      next_attempt_at: new Date().toISOString(),
    };
    state.deliveries.unshift(made);
    routeRedeliver(made);
    return json(made, 201);
  };
  const routeRedeliver = (d: WebhookDelivery) => api.on(`POST /api/webhooks/deliveries/${d.id}/redeliver`, () => deliver(d));
  state.deliveries.forEach(routeRedeliver);

  for (const endpoint of state.endpoints) {
    const at = `/api/webhooks/${endpoint.id}`;
    api.on(`PATCH ${at}`, (c) => {
      const patch = c.body as Partial<WebhookEndpoint>;
      const i = state.endpoints.findIndex((e) => e.id === endpoint.id);
      const turnedOn = patch.enabled === true ? { disabled_reason: null, failing_since: null } : {};
      state.endpoints[i] = { ...state.endpoints[i], ...patch, ...turnedOn };
      return state.endpoints[i];
    });
    api.on(`DELETE ${at}`, () => {
      state.endpoints = state.endpoints.filter((e) => e.id !== endpoint.id);
      return new Response(null, { status: 204 });
    });
    api.on(`POST ${at}/test`, () => deliver({ endpoint_id: endpoint.id, event_id: `msg_t${state.nextId}`, type: 'webhook.test' }));
    api.on(`GET ${at}/deliveries`, () => {
      const mine = state.deliveries.filter((d) => d.endpoint_id === endpoint.id);
      return { deliveries: mine, total: mine.length };
    });
  }
  return { api, state };
}
