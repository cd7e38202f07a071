// This browser as a push device: whether it can take push here, the notification permission, its subscription on the
// service worker's registration, and which of the user's devices it is. The server never sends an endpoint back, so
// the device's id is remembered here beside the endpoint it was made for (a new endpoint is a new device).
// Everything browser-side comes through PushEnv, so the settings screen's tests give it a fake.
import { workerRegistration } from './service-worker.ts';

export type SubscriptionLike = {
  endpoint: string;
  options?: { applicationServerKey?: ArrayBuffer | null };
  toJSON(): { endpoint?: string; keys?: Record<string, string> };
  unsubscribe(): Promise<boolean>;
};
export type PushManagerLike = {
  getSubscription(): Promise<SubscriptionLike | null>;
  subscribe(options: { userVisibleOnly: true; applicationServerKey: Uint8Array<ArrayBuffer> }): Promise<SubscriptionLike>;
};

export type PushEnv = {
  /** Why this browser cannot take push notifications here, or null when it can. */
  unsupported: () => string | null;
  permission: () => NotificationPermission;
  requestPermission: () => Promise<NotificationPermission>;
  /** The service worker's push manager, once the worker is active; null when the page has no worker. */
  pushManager: () => Promise<PushManagerLike | null>;
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
  userAgent: string;
};

export const UNSUPPORTED = {
  insecure: 'Notifications need a secure connection (https): open the app at its https address.',
  browser: 'This browser cannot receive push notifications. On an iPhone or iPad, add the app to your Home Screen '
    + 'and open it from there.',
} as const;

export function browserPushEnv(): PushEnv {
  return {
    unsupported() {
      if (!window.isSecureContext) return UNSUPPORTED.insecure;
      if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) return UNSUPPORTED.browser;
      return null;
    },
    permission: () => Notification.permission,
    requestPermission: () => Notification.requestPermission(),
    pushManager: async () => (await workerRegistration())?.pushManager ?? null,
    storage: safeStorage(),
    userAgent: navigator.userAgent,
  };
}

function safeStorage(): PushEnv['storage'] {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage switched off: the device is not remembered, and shows as not on until allowed again
  }
}

/** Where the device's id is kept, with the endpoint it belongs to. */
export const DEVICE_KEY = 'awPushDevice';

export function rememberedDevice(env: PushEnv, endpoint: string): number | null {
  try {
    const saved = JSON.parse(env.storage?.getItem(DEVICE_KEY) ?? 'null') as { endpoint?: unknown; id?: unknown } | null;
    return saved && saved.endpoint === endpoint && typeof saved.id === 'number' ? saved.id : null;
  } catch {
    return null;
  }
}

export function rememberDevice(env: PushEnv, endpoint: string, id: number | null): void {
  try {
    if (id === null) env.storage?.removeItem(DEVICE_KEY);
    else env.storage?.setItem(DEVICE_KEY, JSON.stringify({ endpoint, id }));
  } catch {
    // no storage: nothing to remember
  }
}

/** A name for this device from its user agent, e.g. "Chrome on Android"; the user sees it in their device list. */
export function deviceLabel(userAgent: string): string {
  const browser = [
    [/Edg(A|iOS)?\//, 'Edge'], [/OPR\//, 'Opera'], [/SamsungBrowser\//, 'Samsung Internet'], [/Firefox\/|FxiOS\//, 'Firefox'],
    [/Chromium\//, 'Chromium'], [/Chrome\/|CriOS\//, 'Chrome'], [/Safari\//, 'Safari'],
  ].find(([pattern]) => (pattern as RegExp).test(userAgent))?.[1];
  const system = [
    [/Android/, 'Android'], [/iPhone/, 'iPhone'], [/iPad/, 'iPad'], [/CrOS/, 'ChromeOS'], [/Windows/, 'Windows'],
    [/Macintosh|Mac OS X/, 'macOS'], [/Linux/, 'Linux'],
  ].find(([pattern]) => (pattern as RegExp).test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return (browser ?? system ?? 'This browser') as string;
}

/** The bytes of a base64url string (the VAPID key). */
export function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

function sameBytes(a: ArrayBuffer | null | undefined, b: Uint8Array<ArrayBuffer>): boolean {
  if (!a) return true; // a browser that does not say: take the subscription as it is
  const left = new Uint8Array(a);
  return left.length === b.length && left.every((byte, i) => byte === b[i]);
}

/**
 * This browser's subscription for the server's key: the one it has, or a new one. A subscription made for another
 * key (the server's keys were made anew) is dropped first, as a browser refuses a second key for the same worker.
 */
export async function subscribe(manager: PushManagerLike, publicKey: string): Promise<SubscriptionLike> {
  const key = base64UrlBytes(publicKey);
  const existing = await manager.getSubscription();
  if (existing && sameBytes(existing.options?.applicationServerKey, key)) return existing;
  await existing?.unsubscribe();
  return manager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
}
