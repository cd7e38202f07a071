// Typed calls for Web Push (issue 47, server/push): the server's public key, the user's devices (one subscription
// each) with the events each wants, a test notification. The paths double as useResource keys.
import { request } from './http.ts';
import { eventLabel } from './webhooks-api.ts';

/** The events a device may choose, in the server's order; their names are the webhooks' (webhooks-api.ts). */
export const PUSH_EVENTS = ['run.needs_help', 'mail.awaiting_approval', 'billing.limit_reached', 'run.failed'] as const;
export type PushEvent = (typeof PUSH_EVENTS)[number];
export const pushEventLabel = (type: string) => eventLabel(type);

/** One browser that gets the user's notifications. The endpoint itself never comes back, only its push service's origin. */
export type PushDevice = {
  id: number;
  label: string;
  events: string[];
  created_at: string;
  last_sent_at: string | null;
  endpoint_origin: string;
};

/** What a browser's PushSubscription.toJSON() gives, with the events and the device's name. */
export type NewPushDevice = { endpoint: string; keys: { p256dh: string; auth: string }; events: string[]; label: string };

export const PUSH_DEVICES_PATH = '/push/subscriptions';
const devicePath = (id: number) => `${PUSH_DEVICES_PATH}/${id}`;

/** The VAPID public key: base64url of the uncompressed P-256 point, the applicationServerKey of a subscription. */
export const getPushKey = () => request<{ public_key: string }>('/push/key');
/** 201 for a new endpoint; the same endpoint again updates its device (events, label) and answers it. */
export const addPushDevice = (device: NewPushDevice) => request<PushDevice>(PUSH_DEVICES_PATH, { method: 'POST', body: device });
export const updatePushDevice = (id: number, patch: { events?: string[]; label?: string }) =>
  request<PushDevice>(devicePath(id), { method: 'PATCH', body: patch });
export const removePushDevice = (id: number) => request<null>(devicePath(id), { method: 'DELETE' });
/** Sends a test notification to that device (202: handed to its push service). */
export const sendTestPush = (id: number) => request<null>(`${devicePath(id)}/test`, { method: 'POST' });
