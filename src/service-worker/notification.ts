// A push message as the notification it shows, and where a click on it goes. The payload is the server's
// (server/push, docs: /tmp/contract/push-api.md): { type, title, body, url, tag }. A message that is not that still
// shows a notification (Chromium requires one for every push, userVisibleOnly), and a url that is not a path of this
// app opens the app's start page instead of another site.

export type PushPayload = { type: string; title: string; body: string; url: string; tag: string };

export const ICON = '/icons/icon-192.png';
export const BADGE = '/icons/badge-96.png';
const FALLBACK_TITLE = 'Agent Workspace';

/** NotificationOptions with `renotify`, which the DOM lib leaves out: a newer message with the same tag alerts again. */
export type ShownNotification = { title: string; options: NotificationOptions & { renotify?: boolean; data: { url: string } } };

export function notificationFor(data: unknown, origin: string): ShownNotification {
  const payload = (data !== null && typeof data === 'object' ? data : {}) as Partial<Record<keyof PushPayload, unknown>>;
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
  const tag = text(payload.tag);
  return {
    title: text(payload.title) || FALLBACK_TITLE,
    options: {
      body: text(payload.body),
      icon: ICON,
      badge: BADGE,
      ...(tag ? { tag, renotify: true } : {}),
      data: { url: appPath(payload.url, origin) },
    },
  };
}

/** `url` as a path of this app (with its query), or '/' when it is missing or leads elsewhere. */
export function appPath(url: unknown, origin: string): string {
  if (typeof url !== 'string' || !url) return '/';
  try {
    const parsed = new URL(url, origin);
    return parsed.origin === origin ? parsed.pathname + parsed.search + parsed.hash : '/';
  } catch {
    return '/';
  }
}

/** What the worker posts to an open window of the app to show a path in it (src/lib/service-worker.ts follows it). */
export type OpenMessage = { type: 'open'; url: string };
export const isOpenMessage = (value: unknown): value is OpenMessage =>
  value !== null && typeof value === 'object' && (value as OpenMessage).type === 'open' && typeof (value as OpenMessage).url === 'string';
