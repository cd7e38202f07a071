// Web Push (issue 47): the deployment's VAPID key, a user's devices and the events each wants, notifications queued
// with the events (webhooks/events.ts) and sent encrypted by a sender on every instance; and the help request's
// one-time link, made when a run pauses for a person and carried by its e-mail and its notification.
export { registerPushRoutes, type PushRouteDeps } from './routes.ts';
export { PushSender, type PushSenderDeps } from './sender.ts';
export { loadVapid, vapidSubject, type Vapid } from './vapid.ts';
export { createHelpLink, HELP_LINK_MINUTES } from './help-links.ts';
export { PUSH_EVENTS } from './notification.ts';
