// First load (issue 12): the JS and CSS the browser fetches to show the agent list (index.html's
// entry, its static imports and the lazily loaded agents screen), gzipped, per file and in total —
// next to react + react-dom alone bundled the same way (esbuild, minified, ESM, production) — and
// the time from navigation to the first agent card in headless Chromium against the built server.
// Targets: JS ≤ 90 KB gz, CSS ≤ 15 KB gz, first agent card < 300 ms.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { chromium } from '@playwright/test';
import { ADMIN, ROOT, call, ensureBuild, freePort, startServer, stop } from './bench-build.mjs';
import { benchResult, median } from './bench-result.mjs';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const LOADS = 10;
const kb = (bytes) => bytes / 1024;
const gz = (buf) => gzipSync(buf, { level: 9 }).length;

async function reactAlone() {
  const result = await esbuild.build({
    stdin: { contents: "import { createElement } from 'react'; import { createRoot } from 'react-dom/client'; createRoot(document.body).render(createElement('div'));", resolveDir: ROOT, loader: 'js' },
    bundle: true, format: 'esm', minify: true, write: false, target: ['chrome110', 'firefox115', 'safari16'],
    define: { 'process.env.NODE_ENV': '"production"' }, legalComments: 'none', logLevel: 'warning',
  });
  return gz(result.outputFiles[0].contents);
}

const dist = ensureBuild();
const dataDir = mkdtempSync(join(tmpdir(), 'aw-bench-first-load-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const { child } = await startServer(dist, dataDir, port);
let browser;
try {
  const token = (await call(base, '/api/auth/sign-in', { body: ADMIN })).token;
  for (let i = 0; i < 10; i++) await call(base, '/api/agents/', { token, body: { name: `Agent ${i + 1}` } });

  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  const context = await browser.newContext();
  // When the first agent card is in the document, in the page's own clock (0 = navigation start).
  await context.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('.agent-card')) {
        (window).__firstCard = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const page = await context.newPage();
  await page.goto(base + '/');
  // Signs in through the API from the page: the refresh cookie lands in this browser context.
  await page.evaluate(async (admin) => {
    const res = await fetch('/api/auth/sign-in', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(admin) });
    if (!res.ok) throw new Error(`sign-in ${res.status}`);
  }, ADMIN);

  const times = [];
  const assets = new Map();
  for (let i = 0; i < LOADS + 1; i++) {
    const fetched = new Set();
    const onResponse = (r) => {
      const path = new URL(r.url()).pathname;
      if (/^\/assets\/.*\.(js|css)$/.test(path)) fetched.add(path);
    };
    page.on('response', onResponse);
    await page.goto(base + '/', { waitUntil: 'commit' });
    await page.waitForSelector('.agent-card', { timeout: 15_000 });
    const t = await page.evaluate(() => (window).__firstCard);
    page.off('response', onResponse);
    if (i === 0) for (const path of fetched) assets.set(path, readFileSync(join(dist, 'public', path)));
    else times.push(t); // the first load fills the HTTP cache; these are the warm ones
    if (i === 0) console.log(`first agent card, cold cache: ${t.toFixed(0)} ms`);
    if (i === 0) benchResult('first load: navigation → first agent card, cold cache', t, 'ms', '< 300 ms');
  }

  let js = 0, css = 0;
  for (const [path, buf] of [...assets].sort()) {
    const size = gz(buf);
    if (path.endsWith('.css')) css += size;
    else js += size;
    console.log(`  ${path}: ${kb(buf.length).toFixed(1)} KB, ${kb(size).toFixed(1)} KB gz`);
    benchResult(`first load: ${path.replace('/assets/', '')} (gz)`, kb(size), 'KB', 'report');
  }
  const react = await reactAlone();
  console.log(`initial route: JS ${kb(js).toFixed(1)} KB gz in ${[...assets.keys()].filter((p) => p.endsWith('.js')).length} files, CSS ${kb(css).toFixed(1)} KB gz; react + react-dom alone ${kb(react).toFixed(1)} KB gz`);
  console.log(`first agent card, warm cache: median ${median(times).toFixed(0)} ms over ${LOADS} loads`);
  benchResult('first load: JS of the initial route (gz)', kb(js), 'KB', '≤ 90 KB', kb(react));
  benchResult('first load: CSS of the initial route (gz)', kb(css), 'KB', '≤ 15 KB');
  benchResult('first load: navigation → first agent card, warm (median)', median(times), 'ms', '< 300 ms');
} finally {
  await browser?.close();
  await stop(child);
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
}
process.exit(0);
