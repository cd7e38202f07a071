// What the service worker does with a request, as a pure function of it (sw.ts carries it out). It answers two kinds:
// a page (network first; offline, the app shell for the app's routes, else the offline page) and a file precached by
// this build (from the cache). Everything else, every /api answer above all, passes to the network untouched and is
// never stored: answers are the user's data and change, and a stored one could outlive a sign-out.

export type Plan =
  /** Not the worker's: the browser fetches it as if there were no worker. */
  | { kind: 'pass' }
  /** A file of this build, from the cache (`key`: its path, without a query). */
  | { kind: 'precached'; key: string }
  /** A page: the network first; when it cannot be reached, the shell (`shell`: an app route) or the offline page. */
  | { kind: 'page'; shell: boolean };

export const SHELL = '/index.html';
export const OFFLINE_PAGE = '/offline.html';

type RequestFacts = { method: string; mode: string; url: string };

export function planFor(request: RequestFacts, origin: string, precached: ReadonlySet<string>): Plan {
  if (request.method !== 'GET') return { kind: 'pass' };
  const url = new URL(request.url);
  if (url.origin !== origin) return { kind: 'pass' };
  const api = url.pathname === '/api' || url.pathname.startsWith('/api/');
  if (request.mode === 'navigate') return { kind: 'page', shell: !api && isAppRoute(url.pathname) };
  if (!api && precached.has(url.pathname)) return { kind: 'precached', key: url.pathname };
  return { kind: 'pass' };
}

/** The server's own rule (server/http/static.ts): a path without an extension is a route of the app, answered with the shell. */
function isAppRoute(path: string): boolean {
  const last = path.slice(path.lastIndexOf('/') + 1);
  return !last.includes('.');
}
