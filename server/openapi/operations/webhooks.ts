// The webhooks wing (issue 46), from the contract in server/webhooks/: a user's endpoints (the secret shown once),
// their delivery log, a test event and a redelivery. Deliveries follow Standard Webhooks.
import { arr, bool, extend, id, input, int, json, noContent, nullable, obj, oneOfEnum, query, ref, str, time, type WingTable } from '../schema.ts';

const EVENTS = ['run.started', 'run.finished', 'run.failed', 'run.needs_help', 'run.guard_paused', 'mail.awaiting_approval', 'billing.limit_reached'];
const ENDPOINT = obj({
  id: id(), url: str({ format: 'uri' }), events: arr(oneOfEnum(EVENTS)), agent_id: nullable(id({ description: 'Only this agent\'s events; null: all' })),
  agent_name: nullable(str()), enabled: bool(), disabled_reason: nullable(str()), failing_since: nullable(time()),
  secret_prefix: str({ description: "The secret's first characters (whsec_…)" }), created_at: time(),
});
const FIELDS = {
  url: str({ description: 'http(s); private, loopback, link-local and metadata addresses are refused (422) unless WEBHOOK_ALLOW_PRIVATE=1' }),
  events: arr(oneOfEnum(EVENTS), { minItems: 1 }),
  agent_id: nullable(id()),
};
const DELIVERY_ANSWER = json(ref('WebhookDelivery'), 'Queued');

export const WEBHOOKS: WingTable = {
  tag: 'webhooks',
  description: 'Signed webhooks (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature v1) for run, mail and billing events.',
  schemas: {
    WebhookEndpoint: ENDPOINT,
    NewWebhookEndpoint: extend(ENDPOINT, { secret: str({ description: 'whsec_<base64>, shown only here' }) }),
    WebhookDelivery: obj({
      id: id(), endpoint_id: id(), event_id: str({ description: 'msg_…, the webhook-id header' }), type: str({ description: 'An event, or webhook.test' }),
      status: oneOfEnum(['pending', 'delivered', 'failed']), attempt: int({ minimum: 0, description: 'Attempts made so far' }),
      response_code: nullable(int()), latency_ms: nullable(int()), error: nullable(str({ description: 'Why the last attempt failed' })),
      created_at: time(), last_attempt_at: nullable(time()), next_attempt_at: nullable(time({ description: 'Set only while pending' })),
    }),
  },
  operations: {
    'GET /webhooks': { summary: "The caller's endpoints, newest first", responses: { 200: json(arr(ref('WebhookEndpoint'))) } },
    'POST /webhooks': {
      summary: 'Add an endpoint (at most 20)', body: input(FIELDS, ['url', 'events']),
      responses: { 201: json(ref('NewWebhookEndpoint'), 'Added; the secret is in this answer only') },
    },
    'PATCH /webhooks/:id': {
      summary: 'Change an endpoint (enabled: true turns a disabled one back on)',
      body: input({ ...FIELDS, enabled: bool() }),
      responses: { 200: json(ref('WebhookEndpoint')) },
    },
    'DELETE /webhooks/:id': { summary: 'Remove an endpoint', responses: { 204: noContent('Removed') } },
    'POST /webhooks/:id/test': { summary: 'Send a test event (type webhook.test)', responses: { 201: DELIVERY_ANSWER } },
    'GET /webhooks/:id/deliveries': {
      summary: "The endpoint's deliveries, newest first",
      query: { limit: query(int({ minimum: 1, maximum: 200, default: 50 }), 'How many'), offset: query(int({ minimum: 0, default: 0 }), 'Newer ones to skip') },
      responses: { 200: json(obj({ deliveries: arr(ref('WebhookDelivery')), total: int({ minimum: 0 }) })) },
    },
    'POST /webhooks/deliveries/:id/redeliver': {
      summary: 'Deliver the same event again (same event_id, type and body)', responses: { 201: DELIVERY_ANSWER },
    },
  },
};
