// What the browser benchmarks share (bench-first-load.mjs, bench-phone.mjs): headless Chromium at /usr/bin/chromium, the
// emulated slow link, the moment of the first agent card, the bytes Chromium received per request as CDP reports them
// (Network.loadingFinished encodedDataLength, headers included), and a service worker's own requests through its
// DevTools target.
import { EventEmitter } from 'node:events';

export const CHROMIUM = '/usr/bin/chromium';
export const FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** 1.6 Mbit/s down, 750 kbit/s up, 150 ms latency (CDP Network.emulateNetworkConditions). */
export const SLOW = { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 };
export const UNTHROTTLED = { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 };

/** An init script: window.__firstCard is when the first agent card is in the document, in the page's clock (0 = navigation start). */
export function markFirstCard() {
  new MutationObserver((_, observer) => {
    if (document.querySelector('.agent-card')) {
      window.__firstCard = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
}

/**
 * Signs in through the API from `page` (on the app's origin): the refresh cookie lands in its browser context, and the
 * page's note that this browser signed in (src/lib/auth.tsx; without it a visit shows the sign-in page and asks for no
 * token). The access token.
 */
export function signInFromPage(page, admin) {
  return page.evaluate(async (admin) => {
    const res = await fetch('/api/auth/sign-in', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(admin) });
    if (!res.ok) throw new Error(`sign-in ${res.status}`);
    localStorage.setItem('awSignedIn', '1');
    return (await res.json()).token;
  }, admin);
}

/**
 * Bytes Chromium received per request (headers included) while `during` runs, from the CDP sessions `sources` (a page's,
 * a worker group's; each with on/off), with the status that came over the wire. A 304 handed to the page ends in
 * loadingFailed (net::ERR_ABORTED) without an encodedDataLength: its header text is what it cost. `settle` (ms): after
 * `during`, wait until no request is in flight and none has started or ended for that long (at most 30 s), and at least
 * until `atLeast` ms after `during` began. Each row: url ("<status> <url>"), href, bytes, and `worker` when a service worker
 * answered it (the page's view of it; the worker's own fetch, if any, is a row of the worker's session).
 */
export async function received(sources, during, { settle = 0, atLeast = 0 } = {}) {
  const rows = new Map();
  const inflight = new Set();
  let last = performance.now();
  const offs = [];
  [].concat(sources).forEach((source, i) => {
    const row = (id) => {
      const key = `${i}:${id}`;
      if (!rows.has(key)) rows.set(key, { session: i, url: id, status: null, header: 0, bytes: undefined, worker: false, at: performance.now() });
      return rows.get(key);
    };
    const done = (id) => {
      inflight.delete(`${i}:${id}`);
      last = performance.now();
    };
    const handlers = {
      'Network.requestWillBeSent': (e) => {
        row(e.requestId).url = e.request.url;
        inflight.add(`${i}:${e.requestId}`);
        last = performance.now();
      },
      'Network.responseReceived': (e) => {
        const r = row(e.requestId);
        r.worker = !!e.response.fromServiceWorker;
        r.status ??= e.response.status;
      },
      'Network.responseReceivedExtraInfo': (e) => Object.assign(row(e.requestId), { status: e.statusCode, header: e.headersText?.length ?? 0 }),
      'Network.loadingFinished': (e) => {
        row(e.requestId).bytes = e.encodedDataLength;
        done(e.requestId);
      },
      'Network.loadingFailed': (e) => {
        row(e.requestId).bytes = 0;
        done(e.requestId);
      },
    };
    for (const [name, fn] of Object.entries(handlers)) source.on(name, fn);
    offs.push(() => { for (const [name, fn] of Object.entries(handlers)) source.off(name, fn); });
  });
  const started = performance.now();
  try {
    await during();
    const deadline = performance.now() + 30_000;
    while (settle && performance.now() < deadline && (inflight.size || performance.now() - last < settle || performance.now() - started < atLeast)) {
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    for (const off of offs) off();
  }
  return [...rows.values()].filter((r) => r.bytes !== undefined)
    .map((r) => ({ ...r, href: r.url, url: `${r.status ?? '?'} ${r.url}`, bytes: r.bytes || r.header || 0 }));
}

/**
 * The browser's service workers, each attached as it appears with `setup(session)` run on it (Network.enable, say).
 * Attached without flattening, so that their messages come through this browser session's own events
 * (Target.receivedMessageFromTarget), which Playwright's CDPSession passes on. `events` re-emits every worker's
 * events, request ids made unique per worker; `seen` lists the workers' URLs and when each was attached.
 */
export async function serviceWorkers(browser, setup) {
  const root = await browser.newBrowserCDPSession();
  const events = new EventEmitter();
  const sessions = new Map();
  const pending = new Map();
  const seen = [];
  let nextId = 1;
  const send = (sessionId, method, params = {}) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject, method });
    root.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
  });
  root.on('Target.receivedMessageFromTarget', ({ sessionId, message }) => {
    if (!sessions.has(sessionId)) return;
    const msg = JSON.parse(message);
    if (msg.id !== undefined) {
      const call = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) call?.reject(new Error(`${call.method}: ${msg.error.message}`));
      else call?.resolve(msg.result);
    } else {
      const params = msg.params?.requestId ? { ...msg.params, requestId: `${sessionId}:${msg.params.requestId}` } : msg.params;
      events.emit(msg.method, params);
    }
  });
  root.on('Target.targetCreated', async ({ targetInfo }) => {
    if (targetInfo.type !== 'service_worker') return;
    try {
      const { sessionId } = await root.send('Target.attachToTarget', { targetId: targetInfo.targetId, flatten: false });
      sessions.set(sessionId, targetInfo);
      seen.push({ url: targetInfo.url, at: performance.now() });
      await setup({ send: (method, params) => send(sessionId, method, params) });
    } catch (err) {
      console.log(`  service worker ${targetInfo.url} not attached: ${err.message}`);
    }
  });
  await root.send('Target.setDiscoverTargets', { discover: true });
  return { events, seen, detach: () => root.detach().catch(() => {}) };
}
