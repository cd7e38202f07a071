// Webhooks (issue 46): endpoints a user sets, events queued in the database where they happen, and a deliverer on
// every instance that signs and sends them (Standard Webhooks), retries, and turns off an endpoint that keeps failing.
export { registerWebhookRoutes, type WebhookRouteDeps } from './routes.ts';
export { Deliverer, type DelivererDeps } from './deliverer.ts';
export { emitThreadEvent, queueThreadEvent, wakeDeliveries, EVENTS, type EventType } from './events.ts';
