// The service worker (/sw.js, built by build.mjs with this build's file list): precaches the app shell, the offline page
// and the build's hashed scripts and styles; answers pages network first, falling back to them offline (plan.ts); shows
// push messages as notifications and opens their path on a click (notification.ts). It stores nothing it was not
// built with: no API answer, no page the server rendered, ever.
// A new build is a new /sw.js, which the browser fetches on the next visit (byte for byte, bypassing the HTTP cache);
// it installs beside the old one, takes over at once (skipWaiting, clients.claim) and drops the old build's cache.
import { notificationFor, type OpenMessage } from './notification.ts';
import { OFFLINE_PAGE, planFor, SHELL } from './plan.ts';
import type { FetchEvent, WorkerScope } from './worker-types.ts';

declare const SW_VERSION: string;
declare const SW_PRECACHE: string[];

const sw = self as unknown as WorkerScope;
const CACHE_PREFIX = 'aw-shell-';
const CACHE = CACHE_PREFIX + SW_VERSION;
const PRECACHED = new Set(SW_PRECACHE);
/** The files whose names carry no hash: fetched past the HTTP cache, so the worker stores this build's copy. */
const UNHASHED = (path: string) => !path.startsWith('/assets/');

sw.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await sw.caches.open(CACHE);
    await cache.addAll(SW_PRECACHE.map((path) => new Request(path, { cache: UNHASHED(path) ? 'no-cache' : 'default' })));
    await sw.skipWaiting();
  })());
});

sw.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const names = await sw.caches.keys();
    await Promise.all(names.filter((name) => name.startsWith(CACHE_PREFIX) && name !== CACHE).map((name) => sw.caches.delete(name)));
    // The page's request leaves while the worker starts, instead of after it.
    await sw.registration.navigationPreload?.enable();
    await sw.clients.claim();
  })());
});

sw.addEventListener('fetch', (event) => {
  const plan = planFor(event.request, sw.location.origin, PRECACHED);
  if (plan.kind === 'precached') event.respondWith(fromCache(plan.key, event.request));
  else if (plan.kind === 'page') event.respondWith(page(event, plan.shell));
});

async function fromCache(key: string, request: Request): Promise<Response> {
  // ignoreVary: stored with `Vary: Accept-Encoding`, and the body is the same whatever coding carried it.
  const cached = await (await sw.caches.open(CACHE)).match(key, { ignoreVary: true });
  return cached ?? fetch(request);
}

async function page(event: FetchEvent, shell: boolean): Promise<Response> {
  try {
    return (await event.preloadResponse) ?? (await fetch(event.request));
  } catch (offline) {
    const cache = await sw.caches.open(CACHE);
    const match = (path: string) => cache.match(path, { ignoreVary: true });
    const fallback = (shell ? await match(SHELL) : undefined) ?? (await match(OFFLINE_PAGE));
    if (fallback) return fallback;
    throw offline;
  }
}

sw.addEventListener('push', (event) => {
  let data: unknown = null;
  try {
    data = event.data?.json() ?? null;
  } catch {
    // not JSON: shown as the app's name alone
  }
  const { title, options } = notificationFor(data, sw.location.origin);
  event.waitUntil(sw.registration.showNotification(title, options));
});

sw.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = (event.notification.data as { url?: string } | null)?.url ?? '/';
  event.waitUntil(openApp(url));
});

/** Shows `url` in the app's window (the focused one, else the first), which routes to it itself; else opens a window. */
async function openApp(url: string): Promise<void> {
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const target = windows.find((client) => client.focused) ?? windows[0];
  if (!target) {
    await sw.clients.openWindow(url);
    return;
  }
  const message: OpenMessage = { type: 'open', url };
  target.postMessage(message);
  await target.focus();
}
