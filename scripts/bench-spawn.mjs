// No spawn on the server's event loop (issue 48, item 5): the event loop's delay (monitorEventLoopDelay, p99) during 10
// desktop starts one after the other, with this process inflated to ~800 MB resident (a fork copies the page tables
// of the process that forks: the server's own spawn() took 38 ms at 800 MB). Budget ≤ 5 ms. The reference is the
// same number of plain child_process.spawn() calls from this process, as many as the 10 starts asked of the spawner,
// at the same pace: what those starts would have cost before. Then 50 window lookups under a click on a running
// desktop (X11 over its socket, no process): the delay they add, budget ≤ 1 ms.
// Needs Xvnc (contained when run as root). Alone: `node scripts/bench-spawn.mjs`; BENCH_SPAWN_MB sets the size.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { benchResult } from './bench-result.mjs';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { findBinary } = await import('../server/desktop/host.ts');
if (!findBinary('Xvnc', process.env.PATH ?? '')) {
  console.log('bench-spawn: Xvnc is not installed, skipped');
  benchResult('spawn: event-loop delay during 10 desktop starts at 800 MB (p99)', NaN, 'ms', '≤ 5 ms', 'skipped: no Xvnc');
  process.exit(0);
}
const { testDesktops, removeDataDir } = await import('../test/server/desktop-helpers.ts');
const { spawner } = await import('../server/system/spawner/index.ts');

const STARTS = 10;
const ms = (ns) => ns / 1e6;

/**
 * Resident memory grown to about `mb`: pages written, so the kernel maps them (a fork copies their tables). They are
 * held by a worker thread, as the server's bulk is (the embedded database runs in one, db/pglite-remote.ts): held by
 * this thread instead, V8 counts them as this isolate's external memory and runs a full collection every ~250 ms
 * while the desktops start (5–17 ms pauses; p99 4.6–5.0 ms against 3.9–4.4 with the same memory in a worker).
 */
async function inflate(mb) {
  const left = Math.max(0, mb - process.memoryUsage().rss / 2 ** 20);
  const holder = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    const held = [];
    for (let left = workerData; left > 0; left -= 64) held.push(Buffer.alloc(64 * 2 ** 20, 1));
    parentPort.postMessage('held');
    parentPort.on('message', () => process.exit(0));`, { eval: true, workerData: left });
  await once(holder, 'message');
  return holder;
}

/** p99 and max of the loop's delay while `work` runs, in ms. */
async function delayDuring(work) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await work();
  h.disable();
  return { p99: ms(h.percentile(99)), max: ms(h.max) };
}

const held = await inflate(Number(process.env.BENCH_SPAWN_MB ?? 800));
const rss = process.memoryUsage().rss / 2 ** 20;
const dir = mkdtempSync(join(tmpdir(), 'aw-bench-spawn-'));
const log = { info: () => {}, error: (m) => process.env.BENCH_VERBOSE && console.error(m) };
const desktops = testDesktops({ dataDir: dir, log, config: { provider: 'xvnc', apps: ['terminal'], displayBase: 890 } });
try {
  spawner().start(); // at boot, as the server does
  // One start first: the machine's caches warm, and the network made ahead is there as it is for a server that runs.
  const warm = await desktops.acquire(1);
  await warm.ready;
  await desktops.stop(1);

  // The floor: the loop's delay with nothing to do for 3 s (on a machine shared with other work, never 0).
  const idle = await delayDuring(() => new Promise((resolve) => setTimeout(resolve, 3000)));
  let asked = 0;
  const count = spawner().spawn.bind(spawner());
  spawner().spawn = (...args) => (asked++, count(...args));
  const times = [];
  const starts = await delayDuring(async () => {
    for (let i = 0; i < STARTS; i++) {
      const t = performance.now();
      const desktop = await desktops.acquire(2);
      await desktop.ready;
      times.push(performance.now() - t);
      await desktops.stop(2);
    }
  });
  spawner().spawn = count;
  const elapsed = times.reduce((a, b) => a + b, 0);

  // Before: as many plain spawns from this process, spread over the same time.
  const gap = elapsed / Math.max(asked, 1);
  const plain = await delayDuring(async () => {
    for (let i = 0; i < asked; i++) {
      const child = spawn('/bin/true', [], { stdio: 'ignore' });
      await new Promise((resolve) => child.once('exit', resolve));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, gap - 2)));
    }
  });

  // A click in control: the window under it, asked of the X server.
  const desktop = await desktops.acquire(3);
  await desktop.ready;
  const clicks = await delayDuring(async () => {
    for (let i = 0; i < 50; i++) await desktop.windowAt(100 + i * 10, 300);
  });
  await desktops.stop(3);

  console.log(`spawn at ${rss.toFixed(0)} MB resident: ${STARTS} desktop starts (${asked} children through the spawner, `
    + `start + apps median ${times.sort((a, b) => a - b)[STARTS >> 1].toFixed(0)} ms): event-loop delay p99 ${starts.p99.toFixed(1)} ms, `
    + `max ${starts.max.toFixed(1)} ms  [budget ≤ 5 ms]; the same ${asked} spawns plain from this process: p99 ${plain.p99.toFixed(1)} ms, `
    + `max ${plain.max.toFixed(1)} ms; 50 window lookups under a click: max ${clicks.max.toFixed(1)} ms  [budget ≤ 1 ms]; `
    + `idle for 3 s: p99 ${idle.p99.toFixed(1)} ms, max ${idle.max.toFixed(1)} ms`);
  benchResult(`spawn: event-loop delay during ${STARTS} desktop starts at ${rss.toFixed(0)} MB (p99)`, starts.p99, 'ms', '≤ 5 ms', plain.p99);
  benchResult('spawn: event-loop delay of a click’s window lookup (max of 50)', clicks.max, 'ms', '≤ 1 ms', idle.max);
} finally {
  await desktops.stopAll();
  removeDataDir(dir);
  await held.terminate();
}
process.exit(0);
