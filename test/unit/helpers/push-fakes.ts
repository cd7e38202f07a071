// Web Push as the SPA tests meet it: a browser (PushEnv) whose permission, service worker and push service the test
// sets, and a fake API that keeps the user's devices as the server would (POST of a known endpoint updates its device).
import type { PushDevice } from '../../../src/lib/push-api.ts';
import type { PushEnv, SubscriptionLike } from '../../../src/lib/push-device.ts';
import { FakeApi, json, USER } from './screen-harness.tsx';

/** A VAPID public key: 65 bytes, an uncompressed P-256 point (0x04, then x and y). */
export const PUBLIC_KEY = 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U';
export const ANDROID_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

export const LAPTOP: PushDevice = {
  id: 4, label: 'Firefox on Linux', events: ['run.needs_help', 'run.failed'], created_at: '2026-11-20T09:00:00Z',
  last_sent_at: '2026-11-28T10:00:00Z', endpoint_origin: 'https://updates.push.services.mozilla.com',
};
export const TABLET: PushDevice = {
  ...LAPTOP, id: 3, label: 'Safari on iPad', events: ['billing.limit_reached'], last_sent_at: null, endpoint_origin: 'https://web.push.apple.com',
};

export class FakeSubscription implements SubscriptionLike {
  unsubscribed = false;
  options: { applicationServerKey: ArrayBuffer };
  constructor(public endpoint: string, key: Uint8Array) {
    this.options = { applicationServerKey: key.slice().buffer };
  }
  toJSON() {
    return { endpoint: this.endpoint, keys: { p256dh: 'BPk-p256dh-key', auth: 'auth-secret' } };
  }
  async unsubscribe() {
    this.unsubscribed = true;
    return true;
  }
}

type BrowserOptions = {
  unsupported?: string;
  permission?: NotificationPermission;
  /** What the permission prompt answers. @default 'granted' */
  answer?: NotificationPermission;
  /** Whether the page has an active service worker. @default true */
  worker?: boolean;
  subscription?: FakeSubscription | null;
  /** The push service refuses to subscribe, with this message. */
  refuse?: string;
  remembered?: { endpoint: string; id: number };
};

/** A browser for the notifications screen; `seen` records what the page asked of it. */
export function fakeBrowser(options: BrowserOptions = {}) {
  const saved = new Map<string, string>();
  if (options.remembered) saved.set('awPushDevice', JSON.stringify(options.remembered));
  const seen = { prompts: 0, subscribed: [] as Uint8Array[], subscription: options.subscription ?? null, saved };
  let permission = options.permission ?? 'default';
  const env: PushEnv = {
    unsupported: () => options.unsupported ?? null,
    permission: () => permission,
    requestPermission: async () => {
      seen.prompts++;
      permission = options.answer ?? 'granted';
      return permission;
    },
    pushManager: async () => (options.worker === false ? null : {
      getSubscription: async () => (seen.subscription?.unsubscribed ? null : seen.subscription),
      subscribe: async ({ applicationServerKey }) => {
        if (options.refuse) throw new DOMException(options.refuse, 'AbortError');
        seen.subscribed.push(applicationServerKey);
        seen.subscription = new FakeSubscription('https://fcm.googleapis.com/fcm/send/new-device', applicationServerKey);
        return seen.subscription;
      },
    }),
    storage: { getItem: (k) => saved.get(k) ?? null, setItem: (k, v) => void saved.set(k, v), removeItem: (k) => void saved.delete(k) },
    userAgent: ANDROID_UA,
  };
  return { env, seen };
}

/** The server's side: the user's devices, by endpoint for POST. */
export function pushApi(devices: PushDevice[] = [LAPTOP, TABLET]) {
  const state = { devices: devices.map((d) => ({ ...d })), endpoints: new Map<string, number>(), nextId: 10, tests: [] as number[] };
  const api = new FakeApi(USER)
    .on('GET /api/push/key', () => ({ public_key: PUBLIC_KEY }))
    .on('GET /api/push/subscriptions', () => state.devices)
    .on('POST /api/push/subscriptions', (c) => {
      const body = c.body as { endpoint: string; events: string[]; label: string };
      const known = state.endpoints.get(body.endpoint);
      const device: PushDevice = {
        id: known ?? state.nextId++, label: body.label, events: body.events, created_at: '2026-11-29T08:00:00Z', last_sent_at: null,
        endpoint_origin: new URL(body.endpoint).origin,
      };
      state.endpoints.set(body.endpoint, device.id);
      state.devices = [device, ...state.devices.filter((d) => d.id !== device.id)];
      route(device.id);
      return json(device, known ? 200 : 201);
    });
  const route = (id: number) => {
    const at = `/api/push/subscriptions/${id}`;
    const find = () => state.devices.find((d) => d.id === id);
    api.on(`PATCH ${at}`, (c) => {
      const device = find();
      if (!device) return json({ detail: 'Not found' }, 404);
      Object.assign(device, c.body);
      return { ...device };
    });
    api.on(`DELETE ${at}`, () => {
      if (!find()) return json({ detail: 'Not found' }, 404);
      state.devices = state.devices.filter((d) => d.id !== id);
      return new Response(null, { status: 204 });
    });
    api.on(`POST ${at}/test`, () => {
      state.tests.push(id);
      return new Response(null, { status: 202 });
    });
  };
  state.devices.forEach((d) => route(d.id));
  return { api, state };
}
