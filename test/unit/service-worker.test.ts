// The service worker's decisions, which sw.ts carries out: which requests it answers (pages, this build's files) and
// which it leaves to the network (every /api answer, anything not precached, other origins); a push message as its
// notification and where a click goes; and the app's side: registering after load on a secure page, and following
// the worker's "open this path". One suite.
import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appPath, notificationFor } from '../../src/service-worker/notification.ts';
import { planFor } from '../../src/service-worker/plan.ts';
import { startServiceWorker, workerRegistration, type WorkerEnv } from '../../src/lib/service-worker.ts';

const test = suite('service worker');
test.after.each(() => reset());

const ORIGIN = 'https://aw.example';
const PRECACHED = new Set(['/index.html', '/offline.html', '/assets/main-ABC.js', '/assets/main-DEF.css']);
const plan = (url: string, mode = 'cors', method = 'GET') => planFor({ url: ORIGIN + url, mode, method }, ORIGIN, PRECACHED);

test('pages go to the network first, with the shell for app routes and the offline page for the rest', () => {
  assert.equal(plan('/', 'navigate'), { kind: 'page', shell: true });
  assert.equal(plan('/agent/7?control=1', 'navigate'), { kind: 'page', shell: true });
  assert.equal(plan('/help/abc', 'navigate'), { kind: 'page', shell: true });
  assert.equal(plan('/api/billing/portal/x', 'navigate'), { kind: 'page', shell: false });
  assert.equal(plan('/favicon.svg', 'navigate'), { kind: 'page', shell: false });
});

test('only this build\'s files come from the cache; API answers and the rest are never the worker\'s', () => {
  assert.equal(plan('/assets/main-ABC.js'), { kind: 'precached', key: '/assets/main-ABC.js' });
  assert.equal(plan('/assets/main-DEF.css?v=2'), { kind: 'precached', key: '/assets/main-DEF.css' });
  for (const url of ['/api/agents/', '/api/users/me', '/api/index.html', '/assets/main-OLD.js', '/manifest.webmanifest']) {
    assert.equal(plan(url), { kind: 'pass' }, url);
  }
  assert.equal(plan('/assets/main-ABC.js', 'cors', 'POST'), { kind: 'pass' });
  assert.equal(planFor({ url: 'https://cdn.example/assets/main-ABC.js', mode: 'cors', method: 'GET' }, ORIGIN, PRECACHED), { kind: 'pass' });
});

test('a push message shows its title, body and tag, and a click opens its path in this app only', () => {
  const shown = notificationFor({
    type: 'run.needs_help', title: 'Ada needs you', body: 'Which invoice?', url: '/help/tok', tag: 'run.needs_help:31',
  }, ORIGIN);
  assert.equal(shown, {
    title: 'Ada needs you',
    options: {
      body: 'Which invoice?', icon: '/icons/icon-192.png', badge: '/icons/badge-96.png', tag: 'run.needs_help:31', renotify: true,
      data: { url: '/help/tok' },
    },
  });
  assert.equal(notificationFor('not json', ORIGIN), {
    title: 'Agent Workspace', options: { body: '', icon: '/icons/icon-192.png', badge: '/icons/badge-96.png', data: { url: '/' } },
  });
  assert.is(appPath(`${ORIGIN}/agent/3?thread=9`, ORIGIN), '/agent/3?thread=9');
  assert.is(appPath('https://evil.example/phish', ORIGIN), '/');
  assert.is(appPath('//evil.example/x', ORIGIN), '/');
  assert.is(appPath(42, ORIGIN), '/');
});

/** A container that records registrations and lets the test post the worker's messages. */
function fakeContainer(active: ServiceWorkerRegistration | null = null) {
  const target = new EventTarget();
  const registered: unknown[][] = [];
  const registration = { scope: 'https://aw.example/' } as ServiceWorkerRegistration;
  const container = Object.assign(target, {
    register: async (...args: unknown[]) => (registered.push(args), registration),
    getRegistration: async () => null,
    ready: active ? Promise.resolve(active) : new Promise(() => {}), // a worker that never becomes active
  }) as unknown as ServiceWorkerContainer;
  const post = (data: unknown) => target.dispatchEvent(new MessageEvent('message', { data }));
  return { container, registered, post };
}

test('registers /sw.js for the whole origin after load on a secure page, and opens what the worker asks', async () => {
  const { container, registered, post } = fakeContainer();
  const opened: string[] = [];
  let loaded: (() => void) | null = null;
  const env: WorkerEnv = { container, secure: true, afterLoad: (run) => void (loaded = run), navigate: (path) => void opened.push(path) };
  startServiceWorker(env);
  assert.equal(registered, []); // not before the load event
  loaded!();
  await Promise.resolve();
  assert.equal(registered, [['/sw.js', { scope: '/', updateViaCache: 'none' }]]);
  post({ type: 'open', url: '/help/tok' });
  post({ type: 'other', url: '/x' });
  post('/y');
  assert.equal(opened, ['/help/tok']);

  const insecure = fakeContainer();
  startServiceWorker({ ...env, container: insecure.container, secure: false, afterLoad: (run) => run() });
  startServiceWorker({ ...env, container: undefined, afterLoad: (run) => run() });
  assert.equal(insecure.registered, []);
});

test('a screen that needs the worker has it registered at once, and gives up on one that never becomes active', async () => {
  const registration = { scope: 'https://aw.example/' } as ServiceWorkerRegistration;
  const ready = fakeContainer(registration);
  startServiceWorker({ container: ready.container, secure: true, afterLoad: () => {}, navigate: () => {} }); // the load is far off
  assert.is(await workerRegistration(ready.container, 1_000), registration);
  assert.equal(ready.registered, [['/sw.js', { scope: '/', updateViaCache: 'none' }]]);

  const stuck = fakeContainer();
  startServiceWorker({ container: stuck.container, secure: true, afterLoad: () => {}, navigate: () => {} });
  assert.is(await workerRegistration(stuck.container, 10), null);
  assert.is(await workerRegistration(undefined), null);
});

test.run();
