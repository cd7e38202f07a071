// Registers the service worker (/sw.js: the app shell offline, Web Push; src/service-worker/sw.ts) a few seconds after
// the page has loaded, so that its precaching (the whole build, ~200 KB compressed, once per build) never competes with
// the first load on a slow link, and shows in the app the path a notification click asks for. A screen that needs the
// worker at once (notifications) has it registered at once. Leaves out update prompts: a new build's worker takes over
// by itself on the next visit.
import { isOpenMessage } from '../service-worker/notification.ts';
import { navigate } from './router.ts';

export const WORKER_URL = '/sw.js';

export type WorkerEnv = {
  /** navigator.serviceWorker; absent in old browsers and, in most, outside a secure context. */
  container: ServiceWorkerContainer | undefined;
  /** Whether the page is a secure context (https, or localhost): service workers and push need one. */
  secure: boolean;
  /** Calls `run` once the page has loaded and a moment has passed. */
  afterLoad: (run: () => void) => void;
  navigate: (path: string) => void;
};

/** After the load event: the screen's own requests (its list, its pictures) are under way or done by then. */
const REGISTER_AFTER_LOAD_MS = 3_000;

const browserEnv = (): WorkerEnv => ({
  container: typeof navigator === 'undefined' ? undefined : navigator.serviceWorker,
  secure: typeof window !== 'undefined' && window.isSecureContext,
  afterLoad: (run) => {
    const later = () => void setTimeout(run, REGISTER_AFTER_LOAD_MS);
    if (document.readyState === 'complete') later();
    else addEventListener('load', later, { once: true });
  },
  navigate: (path) => navigate(path),
});

/** The registration under way or made by startServiceWorker (null: it failed or never started). */
let registering: Promise<ServiceWorkerRegistration | null> | null = null;
/** Registers without waiting any longer (once; later calls do nothing). */
let registerNow = () => {};

export function startServiceWorker(env: WorkerEnv = browserEnv()): void {
  const { container } = env;
  if (!env.secure || !container) return;
  container.addEventListener('message', (event) => {
    if (isOpenMessage(event.data)) env.navigate(event.data.url);
  });
  registering = new Promise((resolve) => {
    let started = false;
    registerNow = () => {
      if (started) return;
      started = true;
      // updateViaCache 'none': the browser asks the server for /sw.js on every visit, never its HTTP cache.
      container.register(WORKER_URL, { scope: '/', updateViaCache: 'none' }).then(resolve, (err: unknown) => {
        console.warn('The service worker did not register: offline use and notifications are off.', err);
        resolve(null);
      });
    };
    env.afterLoad(registerNow);
  });
}

/** How long a worker may take to become active (its install precaches the build) before the page gives up on it. */
const ACTIVE_WITHIN_MS = 20_000;

/**
 * The active worker's registration, which push subscriptions hang on; null when this page has none (a development
 * server, a browser without workers, a worker that failed). Waits for the registration this page makes after its load
 * and for a worker still installing, as PushManager needs an active one.
 */
export async function workerRegistration(
  container = typeof navigator === 'undefined' ? undefined : navigator.serviceWorker,
  timeoutMs = ACTIVE_WITHIN_MS,
): Promise<ServiceWorkerRegistration | null> {
  if (!container) return null;
  registerNow();
  const registration = (await registering) ?? (await container.getRegistration('/'));
  if (!registration) return null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
  return Promise.race([container.ready, late]).finally(() => clearTimeout(timer));
}
