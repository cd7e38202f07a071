// Run replay benchmarks (issue 44), printed, not asserted:
//   1. what recording costs the server: one real Xvnc desktop with a terminal and Chromium, where the agent types in
//      the terminal and scrolls a long page in Chromium (performAction, as runs do, an action every 500 ms, each
//      followed by a frame as the runner asks for one); the server process's CPU over
//      the same workload with a recorder attached and without, alternating, side by side (budget: ≤ 3 % of one
//      core per active desktop);
//   2. the recording's size over that workload, per hour (budget: ≤ 30 MB/h);
//   3. in headless Chromium, the Replay screen on a 60-minute recording (made from frames of that desktop with a
//      stepped clock: a change every second, keyframes every 30 s): time to the first frame on opening it, and
//      time until a seek to a random point shows its frame (budgets: ≤ 1 s and ≤ 500 ms, loopback).
// A real server (PGlite in memory, temporary DATA_DIR). BENCH_REPLAY_SECONDS sets each phase of 1. (default 30).
import { register } from 'node:module';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { benchResult, median } = await import('./bench-result.mjs');
const { findBinary } = await import('../server/desktop/host.ts');
if (!findBinary('Xvnc', process.env.PATH ?? '')) {
  console.log('replay bench skipped: Xvnc is not installed (apt-get install tigervnc-standalone-server)');
  process.exit(0);
}

const PHASE_S = Number(process.env.BENCH_REPLAY_SECONDS) || 30;
const ACTION_MS = 500;
const dataDir = mkdtempSync(join(tmpdir(), 'aw-bench-replay-'));
process.env.DESKTOP_APPS = 'terminal,browser';
process.env.DESKTOP_DISPLAY_BASE ||= '140';
const { loadConfig } = await import('../server/config/index.ts');
const { openDb } = await import('../server/db/db.ts');
const { start } = await import('../server/start.ts');
const { performAction } = await import('../server/desktop/index.ts');
const { RunRecorder } = await import('../server/replay/recorder.ts');
const { ensureBuild } = await import('./bench-build.mjs');

const ADMIN = { email: 'bench-admin@example.test', password: 'bench-password-123' };
const quiet = { info: () => {}, error: (m) => process.env.BENCH_VERBOSE && console.error(m) };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const db = await openDb({ dataDir: null });
const running = await start({
  ...loadConfig(process.env), port: 0, smtpPort: 0, dataDir, staticDir: join(ensureBuild(), 'public'), logRequests: false,
  adminEmail: ADMIN.email, adminPassword: ADMIN.password,
}, db, quiet);

async function api(path, { token, body } = {}) {
  const res = await fetch(running.url + path, {
    method: body ? 'POST' : 'GET',
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

const publish = () => {};
const act = (desktop, action) => performAction(desktop, action, { publish });
/** A long page to scroll, typed into Chromium's address bar. */
const PAGE = `data:text/html,<body style="font:16px sans-serif">${Array.from({ length: 400 }, (_, i) => `<p>Line ${i} of a long page</p>`).join('')}`;

try {
  const token = (await api('/api/auth/sign-in', { body: ADMIN })).token;
  const agent = await api('/api/agents/', { token, body: { name: 'Replay bench' } });
  const desktop = await running.parts.desktops.acquire(agent.id);
  await desktop.settle?.(800, 15_000);
  // Chromium is on the right half, the terminal on the left (server/desktop/start/apps.ts).
  await act(desktop, { action: 'left_click', coordinate: [960, 400] });
  await act(desktop, { action: 'key', text: 'ctrl+l' });
  await act(desktop, { action: 'type', text: `${PAGE}\n` });
  await sleep(2000);

  let step = 0;
  let recorder = null;
  /**
   * The agent at work for `seconds`, as the runner drives it: an action every ACTION_MS (a brisk agent: a model
   * answers in about a second), each followed by the recorder's frame of the screen it left (Runner.record).
   */
  async function work(seconds, onAction = () => recorder?.frameNow()) {
    const until = performance.now() + seconds * 1000;
    const actions = () => [
      { action: 'left_click', coordinate: [300, 400] },
      { action: 'type', text: `echo step ${step} of the replay bench\n` },
      { action: 'scroll', coordinate: [960, 400], scroll_direction: step % 8 < 4 ? 'down' : 'up', scroll_amount: 5 },
    ];
    while (performance.now() < until) {
      step++;
      for (const action of actions()) {
        const next = performance.now() + ACTION_MS;
        await act(desktop, action);
        await onAction();
        await sleep(next - performance.now());
      }
    }
  }

  // 1. and 2.: the same workload with and without a recorder, alternating (two rounds each).
  const cpu = { with: [], without: [] };
  let bytes = 0;
  let seconds = 0;
  const dir = join(dataDir, 'bench-recordings');
  await mkdir(dir, { recursive: true });
  for (let round = 0; round < 4; round++) {
    const recording = round % 2 === 0;
    recorder = recording ? RunRecorder.start({ desktop, path: join(dir, `round-${round}.guac.gz`) }) : null;
    const before = process.cpuUsage();
    const started = performance.now();
    await work(PHASE_S);
    const done = await recorder?.stop();
    const used = process.cpuUsage(before);
    const wall = (performance.now() - started) / 1000;
    (recording ? cpu.with : cpu.without).push(((used.user + used.system) / 1e6 / wall) * 100);
    if (done && process.env.BENCH_VERBOSE) {
      const { gunzipSync } = await import('node:zlib');
      const { readFileSync } = await import('node:fs');
      const { GuacParser } = await import('../server/desktop/view/codec.ts');
      const ins = new GuacParser({ maxBuffer: 1 << 26 }).feed(gunzipSync(readFileSync(join(dir, `round-${round}.guac.gz`))).toString());
      let full = 0, part = 0, frames = 0, cur = null;
      for (const i of ins) {
        if (i.opcode === 'img') cur = i;
        if (i.opcode === 'blob' && cur.args[4] === '0' && cur.args[5] === '0') full += i.args[1].length;
        else if (i.opcode === 'blob') part += i.args[1].length;
        if (i.opcode === 'sync') frames++;
      }
      console.log(`  round ${round}: ${frames} frames; base64 of images at 0,0 (the first frame, keyframes) ${full}, of the others ${part}; ` +
        `${done.bytes} bytes gzip`);
    }
    if (done) {
      bytes += done.bytes;
      seconds += wall;
    }
  }
  const extra = median(cpu.with) - median(cpu.without);
  console.log(`1. server CPU while the agent types and scrolls: ${median(cpu.with).toFixed(1)} % of a core recording, ` +
    `${median(cpu.without).toFixed(1)} % without: recording adds ${extra.toFixed(1)} points  [budget ≤ 3 %]`);
  benchResult('replay: CPU recording adds, one active desktop', extra, '% of a core', '≤ 3 %', median(cpu.without));
  const perHour = (bytes / seconds) * 3600 / 2 ** 20;
  console.log(`2. recording size: ${(bytes / 1024).toFixed(0)} KiB over ${seconds.toFixed(0)} s of that work: ` +
    `${perHour.toFixed(1)} MB per hour  [budget ≤ 30 MB/h]`);
  benchResult('replay: recording size of that work', perHour, 'MB/h', '≤ 30 MB/h');

  // 3. the Replay screen on an hour-long recording, in Chromium.
  const browser = new URL('./bench-replay-browser.mjs', import.meta.url);
  const figures = existsSync(browser)
    && await (await import(browser.href)).seekFigures({ running, db, desktop, token, agentId: agent.id, work: (s) => work(s) });
  if (figures) {
    console.log(`3. Replay screen, 60-minute recording (${(figures.bytes / 2 ** 20).toFixed(1)} MB): first frame ${figures.firstFrame.toFixed(0)} ms ` +
      `[budget ≤ 1000 ms]; seek to a random point: median ${median(figures.seeks).toFixed(0)} ms, worst ${Math.max(...figures.seeks).toFixed(0)} ms ` +
      `[budget ≤ 500 ms]`);
    benchResult('replay: first frame on opening (60 min)', figures.firstFrame, 'ms', '≤ 1000 ms');
    benchResult('replay: seek to a random point (60 min, median)', median(figures.seeks), 'ms', '≤ 500 ms');
    benchResult('replay: seek to a random point (60 min, worst)', Math.max(...figures.seeks), 'ms', '≤ 500 ms');
  }
} finally {
  await running.close();
  await db.close();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
}
