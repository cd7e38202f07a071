// Webhooks (issue 46): endpoints a user sets, events queued in the database where they happen, and a deliverer on
// every instance that signs and sends them (Standard Webhooks), retries, and turns off an endpoint that keeps failing.
export { registerWebhookRoutes, type WebhookRouteDeps } from './routes.ts';
export { Deliverer, type DelivererDeps } from './deliverer.ts';
export { ClaimLoop } from './claim-loop.ts';
export { emitThreadEvent, queueThreadEvent, wakeDeliveries, EVENTS, type EventType } from './events.ts';
// For server/push: where a push may go, and one attempt to send it.
export { checkedAddress, parseTarget, RefusedTarget, type Resolve } from './address-guard.ts';
export { send, SEND_TIMEOUT_MS, type Attempt } from './send.ts';
