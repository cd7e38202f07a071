// Typed calls for the user's webhook endpoints and their deliveries (issue 46), and the events one can subscribe to.
// The signing secret comes back once, in createWebhook's answer; nothing here keeps it. The paths double as useResource keys.
import { request } from './http.ts';
import type { NewWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from './types.ts';

/** The events in the server's order, each with what the settings screen calls it. */
export const EVENTS = [
  { type: 'run.started', label: 'Run started' },
  { type: 'run.finished', label: 'Run finished' },
  { type: 'run.failed', label: 'Run failed' },
  { type: 'run.needs_help', label: 'Agent needs help' },
  { type: 'run.guard_paused', label: 'Run paused by the guard' },
  { type: 'mail.awaiting_approval', label: 'Mail awaiting approval' },
  { type: 'billing.limit_reached', label: 'Spend limit reached' },
] as const;

/** What Send test event delivers; it belongs to no subscription. */
export const TEST_EVENT = 'webhook.test';

const LABELS = new Map<string, string>([...EVENTS.map((e): [string, string] => [e.type, e.label]), [TEST_EVENT, 'Test event']]);
/** An event type's label; a type this build does not know shows as itself. */
export const eventLabel = (type: string) => LABELS.get(type) ?? type;

/** What the New endpoint form sends; agent_id null: all the user's agents. */
export type WebhookInput = { url: string; events: string[]; agent_id: number | null };
export type WebhookPatch = Partial<WebhookInput> & { enabled?: boolean };

/** The newest deliveries the log shows; the server's default page. */
export const DELIVERIES_LIMIT = 50;

export const WEBHOOKS_PATH = '/webhooks';
export const webhookPath = (id: number) => `${WEBHOOKS_PATH}/${id}`;
export const deliveriesPath = (id: number) => `${webhookPath(id)}/deliveries?limit=${DELIVERIES_LIMIT}&offset=0`;

export const createWebhook = (input: WebhookInput) => request<NewWebhookEndpoint>(WEBHOOKS_PATH, { method: 'POST', body: input });
/** `enabled: true` turns a disabled endpoint back on and clears its disabled_reason and failing_since. */
export const updateWebhook = (id: number, patch: WebhookPatch) => request<WebhookEndpoint>(webhookPath(id), { method: 'PATCH', body: patch });
export const deleteWebhook = (id: number) => request<null>(webhookPath(id), { method: 'DELETE' });
/** Queues a 'webhook.test' delivery at once. */
export const sendTestEvent = (id: number) => request<WebhookDelivery>(`${webhookPath(id)}/test`, { method: 'POST' });
/** A new delivery of the same event (same event_id, type and body). */
export const redeliver = (deliveryId: number) =>
  request<WebhookDelivery>(`${WEBHOOKS_PATH}/deliveries/${deliveryId}/redeliver`, { method: 'POST' });
