// The push wing (issue 47), from the contract in server/push/: the VAPID public key, a user's devices (one browser's
// push subscription each) with the events each wants, a test notification, and the help request's one-time link.
import { arr, id, input, json, noContent, nullable, obj, oneOfEnum, ref, str, time, type WingTable } from '../schema.ts';

const EVENTS = ['run.needs_help', 'mail.awaiting_approval', 'billing.limit_reached', 'run.failed'];
const LABEL = str({ maxLength: 100, description: 'The device\'s name; absent: one from the browser\'s User-Agent ("Chrome on Android")' });

export const PUSH: WingTable = {
  tag: 'push',
  description: 'Web Push to a user\'s devices (RFC 8291 encrypted, RFC 8292 VAPID), and the one-time link of a help request.',
  schemas: {
    PushDevice: obj({
      id: id(), label: str(), events: arr(oneOfEnum(EVENTS)), created_at: time(), last_sent_at: nullable(time()),
      endpoint_origin: str({ description: 'The push service\'s origin (the endpoint itself is never shown)' }),
    }),
  },
  operations: {
    'GET /push/key': {
      summary: 'The VAPID public key (the applicationServerKey of a subscription)',
      responses: { 200: json(obj({ public_key: str({ description: 'base64url of the uncompressed P-256 point' }) })) },
    },
    'GET /push/subscriptions': { summary: "The caller's devices, newest first", responses: { 200: json(arr(ref('PushDevice'))) } },
    'POST /push/subscriptions': {
      summary: 'Add a device (at most 20); the same endpoint again updates its device',
      body: input({
        endpoint: str({ description: 'https; private, loopback and link-local addresses are refused (422) unless WEBHOOK_ALLOW_PRIVATE=1' }),
        keys: input({ p256dh: str({ description: 'base64url, 65 bytes' }), auth: str({ description: 'base64url, 16 bytes' }) }, ['p256dh', 'auth']),
        events: arr(oneOfEnum(EVENTS)), label: LABEL,
      }, ['endpoint', 'keys', 'events']),
      responses: { 201: json(ref('PushDevice'), 'Added'), 200: json(ref('PushDevice'), 'The endpoint was this user\'s device already: updated') },
    },
    'PATCH /push/subscriptions/:id': {
      summary: 'Change a device\'s events or name', body: input({ events: arr(oneOfEnum(EVENTS)), label: LABEL }),
      responses: { 200: json(ref('PushDevice')) },
    },
    'DELETE /push/subscriptions/:id': { summary: 'Remove a device', responses: { 204: noContent('Removed') } },
    'POST /push/subscriptions/:id/test': {
      summary: 'Send the device a test notification (type push.test), whatever events it chose',
      responses: { 202: json(obj({}), 'Queued') },
    },
    'POST /help-links/:token/use': {
      summary: 'Use a help request\'s one-time link (its thread\'s owner, once, within 30 minutes)',
      security: 'session',
      path: { token: { schema: str({ pattern: '^[A-Za-z0-9_-]{43}$' }), description: 'From /help/<token>' } },
      responses: { 200: json(obj({ agent_id: id(), thread_id: id() }), 'Used: open this agent\'s desktop with control taken') },
      errors: [404],
    },
  },
};
