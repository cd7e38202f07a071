// Desktop benchmarks (`npm run bench` runs this, then scripts/bench-runner.mjs): the live desktop's budgets on this machine (issue 4), printed, not asserted.
//   1. input-to-pixel latency on loopback: a key sent through the Guacamole tunnel → the frame showing it
//      (median; budget < 100 ms)
//   2. idle desktop: bytes/s a connected, pinging viewer receives (only keep-alives expected)
//   3. full-screen change at 1280x800: from the server's framebuffer update until all of it has reached
//      the viewer (median; budget < 150 ms); also with the Node test client's slow JS PNG decode included
//   4. GET /api/agents/{id}/screenshot median, unchanged screen and after a change (budget < 50 ms)
//   5. a scrolling terminal: bytes/s, frames/s and images per frame at the viewer
//   6. in headless Chromium, the app's live view (our gateway) next to Debian's noVNC + websockify on the
//      same Xvnc: input-to-pixel latency, idle and scrolling bytes/s (scripts/bench-desktop-browser.mjs, a
//      process of its own),
//      once as the machine is and once with one core kept busy
//   7. the window under a click (a take-over's action log names it): how long a lookup takes and how long the
//      server's event loop stalls meanwhile, with the server's resident size (a fork stalls it in proportion)
//   0. cold enter → first frame over 5 agents (median; budget ≤ 1.0 s): scripts/bench-desktop-start.mjs
// A real server (PGlite in memory, temporary DATA_DIR) with one Xvnc desktop running only a terminal.
import { register } from 'node:module';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { benchResult } = await import('./bench-result.mjs');

const { findBinary } = await import('../server/desktop/host.ts');
if (!findBinary('Xvnc', process.env.PATH ?? '')) {
  console.log('desktop bench skipped: Xvnc is not installed (apt-get install tigervnc-standalone-server)');
  process.exit(0);
}

const dataDir = mkdtempSync(join(tmpdir(), 'aw-bench-'));
process.env.DESKTOP_APPS = 'terminal';
process.env.DESKTOP_DISPLAY_BASE ||= '120';
const { loadConfig } = await import('../server/config/index.ts');
const { openDb } = await import('../server/db/db.ts');
const { start } = await import('../server/start.ts');
const { keysymsForText } = await import('../server/desktop/rfb/keysyms.ts');
const { GuacTestClient, diffPixels } = await import('../test/server/desktop-helpers.ts');
const { ensureBuild } = await import('./bench-build.mjs');
const { browserBenchAvailable, compareInOwnProcess } = await import('./bench-desktop-browser.mjs');
const { benchColdStart } = await import('./bench-desktop-start.mjs');

const ADMIN = { email: 'bench-admin@example.test', password: 'bench-password-123' };
const quiet = { info: () => {}, error: (m) => process.env.BENCH_VERBOSE && console.error(m) };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (v) => `${v.toFixed(1)} ms`;
const kb = (v) => `${(v / 1024).toFixed(1)} KiB`;

const db = await openDb({ dataDir: null });
// The built app is served too: the browser half (6.) opens the live view.
const staticDir = browserBenchAvailable() ? join(ensureBuild(), 'public') : null;
const running = await start({
  ...loadConfig(process.env), port: 0, smtpPort: 0, dataDir, staticDir, logRequests: false,
  adminEmail: ADMIN.email, adminPassword: ADMIN.password,
}, db, quiet);
const base = running.url;

async function api(path, { token, body, method } = {}) {
  const res = await fetch(base + path, {
    method: method ?? (body ? 'POST' : 'GET'),
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, body: type.includes('json') ? await res.json() : Buffer.from(await res.arrayBuffer()) };
}

let client;
try {
  const admin = (await api('/api/auth/sign-in', { body: ADMIN })).body.token;
  // 0. cold enter → first frame, 5 agents (issue 48)
  await benchColdStart({ api, base, admin, desktops: running.parts.desktops, connect: (url) => GuacTestClient.connect(url) });
  const agent = (await api('/api/agents/', { token: admin, body: { name: 'Bench' } })).body;
  const started = performance.now();
  const enter = await api('/api/agents/enter', { token: admin, body: { agent_id: agent.id } });
  console.log(`desktop start (POST /agents/enter, cold): ${ms(performance.now() - started)}`);
  const desktop = running.parts.desktops.running(agent.id);
  client = await GuacTestClient.connect(base.replace('http', 'ws') + enter.body.guacamole_tunnel_url);
  await client.until(() => client.frames >= 1, 10_000, 'first frame');
  await api(`/api/agents/${agent.id}/control`, { token: admin, body: { session_id: enter.body.session_id, take: true } });
  // Like the browser: an internal ping every 500 ms.
  const pinger = setInterval(() => client.sendRaw(`0.,4.ping,13.${Date.now()};`), 500);
  const type = (text) => {
    for (const k of keysymsForText(text)) {
      client.send('key', k, 1);
      client.send('key', k, 0);
    }
  };
  client.send('mouse', 300, 400, 0);
  await sleep(2500);
  await desktop.settle(300, 3000);

  // 1. input → pixel
  {
    const samples = [];
    for (let i = 0; i < 30; i++) {
      await desktop.settle(150, 1500);
      await sleep(50);
      const frames = client.frames;
      const t = performance.now();
      type(i % 2 ? '\b' : 'x');
      await client.until(() => client.frames > frames, 3000, 'frame after key');
      samples.push(client.syncTimes[frames] - t);
    }
    console.log(`1. input-to-pixel latency (key → frame at the viewer, loopback): median ${ms(median(samples))}, ` +
      `max ${ms(Math.max(...samples))}  [budget < 100 ms]`);
    benchResult('desktop: input-to-pixel, our gateway (median)', median(samples), 'ms', '< 100 ms, ≤ noVNC');
  }

  // 2. idle
  {
    await desktop.settle(500, 3000);
    const bytes = client.bytes;
    const count = client.log.length;
    await sleep(10_000);
    const got = client.log.slice(count).map((i) => i.opcode || 'ping-echo');
    const kinds = [...new Set(got)].join(', ');
    benchResult('desktop: idle traffic, our gateway', (client.bytes - bytes) / 10, 'B/s', 'keep-alives only');
    console.log(`2. idle desktop: ${((client.bytes - bytes) / 10).toFixed(0)} bytes/s to the viewer over 10 s ` +
      `(${got.length} instructions: ${kinds || 'none'})  [expect keep-alives only]`);
  }

  // 3. full-screen change: a 1280x800 xterm full of text, flipped to reverse video and back.
  {
    const display = (await import('node:fs')).readFileSync(join(dataDir, 'run', `xvnc-agent-${agent.id}.pid`), 'latin1').split('\n')[1];
    // A program of the desktop, started as its apps are (in its sandbox when contained).
    const full = running.parts.desktops.xvnc.sandboxOf(agent.id)
      .spawn('xterm', ['-fa', 'Monospace', '-fs', '10', '-geometry', '160x47+0+0', '-e', 'sh', '-c', 'ls -la /usr/bin /usr/lib | head -46; exec sh'], {
        env: { DISPLAY: `:${display}` },
      });
    await sleep(1500);
    client.send('mouse', 640, 400, 0);
    await sleep(300);
    await desktop.settle(300, 3000);
    const samples = [];
    const sizes = [];
    const arrived = [];
    const decodes = [];
    for (let i = 0; i < 10; i++) {
      let first = 0;
      const onUpdate = (rects) => {
        const area = rects.reduce((n, r) => n + r.w * r.h, 0);
        if (!first && area > 1280 * 700) first = performance.now();
      };
      desktop.on('update', onUpdate);
      const bytes = client.bytes;
      const decodeBefore = client.decodeMs;
      type(i % 2 ? "printf '\\033[?5l'\n" : "printf '\\033[?5h'\n");
      await client.until(() => first > 0, 3000, 'full-screen update');
      await client.until(() => diffPixels(client.canvas, desktop.framebuffer().data) === 0, 5000, 'viewer to converge');
      const decode = client.decodeMs - decodeBefore;
      samples.push(performance.now() - first);
      arrived.push(performance.now() - first - decode);
      decodes.push(decode);
      sizes.push(client.bytes - bytes);
      desktop.off('update', onUpdate);
      await desktop.settle(200, 2000);
    }
    full.kill();
    benchResult('desktop: full-screen change 1280x800 (median)', median(arrived), 'ms', '< 150 ms');
    console.log(`3. full-screen change 1280x800 (server update → all of it at the viewer): median ${ms(median(arrived))}, ` +
      `max ${ms(Math.max(...arrived))}, ${kb(median(sizes))} per change  [budget < 150 ms]`);
    console.log(`   with this Node test client's own JS PNG decode (a browser decodes natively): median ${ms(median(samples))}, ` +
      `of which decoding ${ms(median(decodes))}`);
    await sleep(500);
  }

  // 4. screenshot endpoint
  {
    await desktop.settle(300, 3000);
    const idle = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      const res = await api(`/api/agents/${agent.id}/screenshot`, { token: admin });
      idle.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`screenshot: ${res.status}`);
    }
    const changed = [];
    for (let i = 0; i < 20; i++) {
      type(i % 2 ? '\b' : 'y');
      await desktop.settle(100, 1000);
      const t = performance.now();
      await api(`/api/agents/${agent.id}/screenshot`, { token: admin });
      changed.push(performance.now() - t);
    }
    benchResult('desktop: GET screenshot, unchanged (median)', median(idle), 'ms', '< 50 ms');
    benchResult('desktop: GET screenshot, after change (median)', median(changed), 'ms', '< 50 ms');
    console.log(`4. GET /api/agents/{id}/screenshot: median ${ms(median(idle))} unchanged screen, ` +
      `${ms(median(changed))} right after a change  [budget < 50 ms]`);
  }

  // 5. scrolling terminal
  {
    client.send('mouse', 300, 400, 0);
    await sleep(200);
    let rfbRects = 0, updates = 0;
    const onUpdate = (rects, copies) => {
      updates++;
      rfbRects = Math.max(rfbRects, rects.length + copies.length);
    };
    desktop.on('update', onUpdate);
    type('clear; while :; do ls -la --color=always /usr/bin; done\n');
    await sleep(1500);
    const bytes = client.bytes;
    const frames = client.frames;
    const count = client.log.length;
    const seconds = 5;
    await sleep(seconds * 1000);
    const log = client.log.slice(count);
    let perFrame = 0, maxImgs = 0, imgs = 0;
    for (const i of log) {
      if (i.opcode === 'img') (perFrame++, imgs++);
      if (i.opcode === 'sync') (maxImgs = Math.max(maxImgs, perFrame), (perFrame = 0));
    }
    desktop.off('update', onUpdate);
    const fps = (client.frames - frames) / seconds;
    benchResult('desktop: scrolling terminal, our gateway', (client.bytes - bytes) / seconds / 1024, 'KiB/s', 'report');
    console.log(`5. scrolling terminal: ${kb((client.bytes - bytes) / seconds)}/s to the viewer, ${fps.toFixed(1)} frames/s, ` +
      `${(imgs / Math.max(1, client.frames - frames)).toFixed(1)} images per frame (max ${maxImgs}); ` +
      `Xvnc sent up to ${rfbRects} rects per update`);
    // Stopped, and quiet before the browsers come: a terminal still scrolling would answer every key at once
    // (a lost Ctrl+C once left it scrolling through the first browser comparison). Again every 3 s, until a
    // second passes without an update.
    for (let second = 0; second < 30; second++) {
      if (second % 3 === 0) for (const [keysym, down] of [[0xffe3, 1], [0x63, 1], [0x63, 0], [0xffe3, 0]]) client.send('key', keysym, down);
      let changes = 0;
      const count = () => changes++;
      desktop.on('update', count);
      await sleep(1000);
      desktop.off('update', count);
      if (!changes) break;
    }
  }
  clearInterval(pinger);
  // The test client decodes PNGs in JS on the server's own event loop: it would slow our gateway (and
  // only ours) during the browser comparison.
  client.close();

  // 6. the same in Chromium, ours against noVNC
  if (!browserBenchAvailable()) console.log('6. browser comparison skipped: needs /usr/bin/chromium, /usr/share/novnc and websockify');
  else {
    const socketPath = running.parts.desktops.running(agent.id).target.path;
    // Twice, as issue 21 asks: on the machine as it is, then with one core kept busy by a spinning process.
    for (const busy of [false, true]) {
      const spinner = busy ? spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }) : null;
      const condition = busy ? 'one core busy' : 'no added load';
      try {
        // Bounded: a stuck browser must not hold up `npm run bench`.
        let timer;
        const r = await Promise.race([
          compareInOwnProcess({ base, admin: ADMIN, agentId: agent.id, socketPath, log: console.log, condition }),
          new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('browser comparison took over 4 minutes')), 240_000))),
        ]).finally(() => clearTimeout(timer));
        const name = (what) => `desktop: ${what} in Chromium, ours vs noVNC, ${condition}`;
        benchResult(name('input-to-pixel') + ', each alone in turns (median)', r.ours.latency, 'ms', '≤ noVNC', r.novnc.latency);
        benchResult(name('input-to-pixel') + ', both connected, noVNC served first (median)', r.ours.together, 'ms', 'report', r.novnc.together);
        benchResult(name('click-to-pixel') + ', each alone in turns (median)', r.ours.click, 'ms', '≤ noVNC', r.novnc.click);
        const ratio = (what) => `${(r.ours[what] / r.novnc[what]).toFixed(2)}x (95% bootstrap interval ${r.interval[what].map((v) => v.toFixed(2)).join('-')})`;
        console.log(`   ours/noVNC, ${condition}: keys ${ratio('latency')}, clicks ${ratio('click')}`);
        benchResult(name('idle traffic'), r.ours.idle, 'B/s', 'keep-alives only', r.novnc.idle);
        benchResult(name('scrolling terminal'), r.ours.scrolling / 1024, 'KiB/s', 'report', r.novnc.scrolling / 1024);
      } finally {
        spinner?.kill('SIGKILL');
      }
    }
  }

  // 7. the window under a click
  {
    const lookups = [];
    const stalls = [];
    for (let i = 0; i < 20; i++) {
      let last = performance.now();
      let stall = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        stall = Math.max(stall, now - last);
        last = now;
      }, 1);
      const t = performance.now();
      const title = await desktop.windowAt(300, 400);
      lookups.push(performance.now() - t);
      clearInterval(ticker);
      stalls.push(stall);
      if (title !== 'Terminal') throw new Error(`window under the terminal: ${title}`);
    }
    benchResult('desktop: window under a click, lookup (median)', median(lookups), 'ms', 'report');
    benchResult('desktop: window under a click, event-loop stall (max)', Math.max(...stalls), 'ms', 'report');
    console.log(`7. the window under a click: lookup median ${ms(median(lookups))}, max ${ms(Math.max(...lookups))}; ` +
      `the server's event loop meanwhile: longest stall median ${ms(median(stalls))}, max ${ms(Math.max(...stalls))} ` +
      `(a 1 ms timer; resident ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB)`);
  }
} finally {
  client?.close();
  await running.close();
  await db.close();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
}
process.exit(0);
