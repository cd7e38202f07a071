// Phones (issue 47), printed, not asserted: the agents grid's first load at phone width (390×844, Chromium's mobile
// emulation with touch and an Android Chrome User-Agent) over the emulated slow link (1.6 Mbit/s down, 750 kbit/s up,
// 150 ms), ≤ 120 KB on the wire and ≤ 1.8 s from navigation to the first agent card; and a return visit with the
// service worker installed and controlling the page, ≤ 20 KB on the wire.
// Bytes are as Chromium receives them (CDP Network.loadingFinished encodedDataLength, headers included; bench-browser.mjs),
// counted from navigation until the network has been quiet for a second. The server is reached through a TCP proxy in
// this process that counts every byte it relays and which request on its connection they belong to (WebSockets apart):
// a check on CDP. A return visit adds the worker's own requests (its DevTools target's Network events: the navigation
// preload), leaves out what the worker answered from its cache, and waits 6 s at least, so that the registration the
// page makes 3 s after its load and the browser's update check of /sw.js are in it; that check is the browser's own,
// which no target reports, and comes from the proxy's count.
// A cold load is a tab whose HTTP cache was cleared and that has no service worker (the context blocks them); the
// return visit is a new tab of a context whose first visit installed the worker and waited for it to control the page.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, devices } from '@playwright/test';
import { ADMIN, call, ensureBuild, freePort, startServer, stop } from './bench-build.mjs';
import { benchResult, median } from './bench-result.mjs';
import { CHROMIUM, FLAGS, markFirstCard, received, serviceWorkers, signInFromPage, SLOW } from './bench-browser.mjs';

const COLD_LOADS = 5;
const RETURN_VISITS = 3;
const PHONE = {
  viewport: { width: 390, height: 844 }, screen: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true,
  userAgent: devices['Pixel 7'].userAgent,
};
const kb = (bytes) => bytes / 1024;
const sum = (rows) => rows.reduce((n, r) => n + r.bytes, 0);
const load = () => loadavg().map((l) => l.toFixed(2)).join(', ');

/**
 * A TCP proxy to the server that counts the bytes it relays each way, per request: a connection's bytes from the
 * server belong to its latest request (Chromium does not pipeline HTTP/1.1), and a WebSocket's to its upgrade.
 */
async function countingProxy(port) {
  const requests = [];
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    let current = null;
    let socket = false;
    client.on('data', (chunk) => {
      if (!socket) {
        for (const m of chunk.toString('latin1').matchAll(/^([A-Z]+) (\S+) HTTP\/1\.1\r\n([\s\S]*?)\r\n\r\n/gm)) {
          socket = /^upgrade: websocket\r?$/im.test(m[3]);
          current = { method: m[1], path: m[2], up: 0, down: 0, at: performance.now(), socket };
          requests.push(current);
        }
      }
      if (current) current.up += chunk.length;
    });
    upstream.on('data', (chunk) => {
      if (current) current.down += chunk.length;
    });
    client.pipe(upstream).on('error', () => client.destroy());
    upstream.pipe(client).on('error', () => upstream.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    /** The requests made since performance.now() was `from`. */
    since: (from) => requests.filter((r) => r.at >= from),
    close: () => new Promise((r) => server.close(r)),
  };
}

/**
 * The proxy's requests that no CDP row stands for (matched by path and query, each once): the browser's own, such as its
 * update check of /sw.js, which neither the page's target nor the worker's reports.
 */
function onlyThroughProxy(rows, requests) {
  const left = rows.map((r) => { const u = new URL(r.href); return u.pathname + u.search; });
  return requests.filter((r) => {
    if (r.socket) return false;
    const i = left.indexOf(r.path);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

function printRows(label, rows, base) {
  for (const r of rows) console.log(`  ${label}: ${r.url.replace(base, '')} ${r.bytes} B${r.worker ? ' (answered by the service worker)' : ''}`);
}

function printProxy(label, requests) {
  const http = requests.filter((r) => !r.socket);
  const sockets = requests.filter((r) => r.socket);
  for (const r of http) console.log(`  ${label}, proxy: ${r.method} ${r.path} ${r.down} B down, ${r.up} B up`);
  const down = http.reduce((n, r) => n + r.down, 0);
  console.log(`  ${label}, proxy: HTTP ${kb(down).toFixed(1)} KB down in ${http.length} requests; ` +
    `${sockets.length} WebSocket(s) ${sockets.reduce((n, r) => n + r.down, 0)} B down so far`);
  return down;
}

console.log(`load average at the start: ${load()} on ${cpus().length} cores`);
const dist = ensureBuild();
const dataDir = mkdtempSync(join(tmpdir(), 'aw-bench-phone-'));
const port = await freePort();
const { child } = await startServer(dist, dataDir, port);
const proxy = await countingProxy(port);
const base = proxy.url;
let browser;
try {
  const token = (await call(base, '/api/auth/sign-in', { body: ADMIN })).token;
  for (let i = 0; i < 10; i++) await call(base, '/api/agents/', { token, body: { name: `Agent ${i + 1}` } });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });

  /** A phone's tab in `context`, signed in (the refresh cookie lands in the context), on the slow link. */
  const phoneTab = async (context, signIn) => {
    const page = await context.newPage();
    if (signIn) {
      await page.goto(base + '/');
      await signInFromPage(page, ADMIN);
    }
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', SLOW);
    return { page, cdp };
  };
  const visit = (page) => async () => {
    await page.goto(base + '/', { waitUntil: 'commit' });
    await page.waitForSelector('.agent-card', { timeout: 30_000 });
  };

  // 1. First loads at phone width: cold, no service worker.
  const cold = await browser.newContext({ ...PHONE, serviceWorkers: 'block' });
  await cold.addInitScript(markFirstCard);
  const { page, cdp } = await phoneTab(cold, true);
  const loads = [];
  for (let i = 0; i < COLD_LOADS; i++) {
    await cdp.send('Network.clearBrowserCache');
    const from = performance.now();
    const rows = await received(cdp, visit(page), { settle: 1000 });
    const card = await page.evaluate(() => window.__firstCard);
    const width = await page.evaluate(() => [innerWidth, devicePixelRatio, navigator.maxTouchPoints]);
    if (i === 0) {
      console.log(`phone: innerWidth ${width[0]}, devicePixelRatio ${width[1]}, maxTouchPoints ${width[2]}`);
      printRows('cold', rows, base);
      printProxy('cold', proxy.since(from));
    }
    // The page's clock starts at navigation: a request that began after the card is later than its time since `from`.
    const beforeCard = rows.filter((r) => r.at - from <= card);
    loads.push({ bytes: sum(rows), beforeCard: sum(beforeCard), card, proxied: proxy.since(from).filter((r) => !r.socket).reduce((n, r) => n + r.down, 0) });
  }
  await cold.close();
  for (const [i, l] of loads.entries()) {
    console.log(`phone cold load ${i + 1}: first agent card ${l.card.toFixed(0)} ms; on the wire ${kb(l.bytes).toFixed(1)} KB (CDP), ` +
      `${kb(l.beforeCard).toFixed(1)} KB of it asked before the card; ${kb(l.proxied).toFixed(1)} KB through the proxy`);
  }
  benchResult(`phone first load, slow link: bytes on the wire, cold (CDP, median of ${COLD_LOADS})`, kb(median(loads.map((l) => l.bytes))), 'KB', '≤ 120 KB');
  benchResult(`phone first load, slow link: navigation → first agent card, cold (median of ${COLD_LOADS})`, median(loads.map((l) => l.card)), 'ms',
    '≤ 1800 ms');

  // 2. A return visit: the first visit installs the service worker and waits until it controls the page.
  const workers = await serviceWorkers(browser, async (worker) => {
    await worker.send('Network.enable');
    await worker.send('Network.emulateNetworkConditions', SLOW);
  });
  const installed = await browser.newContext({ ...PHONE, serviceWorkers: 'allow' });
  await installed.addInitScript(markFirstCard);
  const first = await phoneTab(installed, true);
  const firstFrom = performance.now();
  const firstRows = await received([first.cdp, workers.events], async () => {
    await visit(first.page)();
    await first.page.waitForFunction(() => navigator.serviceWorker.controller?.scriptURL.endsWith('/sw.js'), null, { timeout: 60_000 });
  }, { settle: 2000 });
  const precached = await first.page.evaluate(async () => {
    const names = await caches.keys();
    return Promise.all(names.map(async (name) => (await (await caches.open(name)).keys()).length));
  });
  console.log(`first visit with the worker: controlled after ${((performance.now() - firstFrom) / 1000).toFixed(1)} s; ` +
    `${kb(sum(firstRows.filter((r) => !r.worker))).toFixed(1)} KB on the wire (CDP, its install's precache included: ${precached.join(', ')} files cached)`);
  printProxy('first visit', proxy.since(firstFrom));
  await first.page.close();

  const visits = [];
  for (let i = 0; i < RETURN_VISITS; i++) {
    const tab = await phoneTab(installed, false);
    const workersBefore = workers.seen.length;
    const from = performance.now();
    const rows = await received([tab.cdp, workers.events], visit(tab.page), { settle: 1000, atLeast: 6000 });
    const controlled = await tab.page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null);
    const card = await tab.page.evaluate(() => window.__firstCard);
    const wire = rows.filter((r) => !r.worker);
    const fromWorker = rows.filter((r) => r.worker);
    if (i === 0) {
      printRows('return visit', rows, base);
      console.log(`  return visit: answered by the worker: ${fromWorker.length} responses (not on the wire)`);
    }
    const proxied = printProxy(`return visit ${i + 1}`, proxy.since(from));
    const browserOwn = onlyThroughProxy(wire, proxy.since(from));
    const own = browserOwn.reduce((n, r) => n + r.down, 0);
    console.log(`phone return visit ${i + 1}: controlled by ${controlled?.replace(base, '') ?? 'no worker'}; first agent card ${card.toFixed(0)} ms; ` +
      `on the wire ${kb(sum(wire) + own).toFixed(1)} KB: CDP page ${kb(sum(wire.filter((r) => r.session === 0))).toFixed(1)} KB, ` +
      `the worker's own ${kb(sum(wire.filter((r) => r.session === 1))).toFixed(1)} KB, the browser's own (seen by the proxy only: ` +
      `${browserOwn.map((r) => `${r.method} ${r.path} ${r.down} B`).join(', ') || 'none'}); ${kb(proxied).toFixed(1)} KB through the proxy; ` +
      `${workers.seen.length - workersBefore} worker(s) started during it`);
    if (!controlled) throw new Error('the return visit was not controlled by the service worker');
    visits.push({ bytes: sum(wire) + own, card, proxied });
    await tab.page.close();
  }
  benchResult(`phone return visit with the service worker: bytes on the wire (CDP page + worker + /sw.js check, median of ${RETURN_VISITS})`,
    kb(median(visits.map((v) => v.bytes))), 'KB', '≤ 20 KB', `${kb(median(visits.map((v) => v.proxied))).toFixed(1)} KB through the proxy`);
  await workers.detach();
  await installed.close();
} finally {
  await browser?.close();
  await proxy.close();
  await stop(child);
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
}
console.log(`load average at the end: ${load()}`);
process.exit(0);
