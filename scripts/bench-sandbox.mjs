// What containing a desktop costs (issue 17), contained (DESKTOP_SANDBOX=on) against uncontained (off) in
// the same run, one Xvnc desktop with a terminal each:
//   1. desktop start: from acquire() until the desktop answers RFB with its apps up (median of 3);
//   2. input-to-pixel at the server: a key sent over RFB → the framebuffer update showing it (median of 40).
// Printed, not asserted. Needs root (per-agent users), Xvnc and bubblewrap; says so and exits otherwise.
import { register } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { benchResult, median } = await import('./bench-result.mjs');
const { createDesktops } = await import('../server/desktop/place/local-desktops.ts');
const { findBinary } = await import('../server/desktop/host.ts');
const { keysymsForText } = await import('../server/desktop/rfb/keysyms.ts');

const PATH = process.env.PATH ?? '';
if (process.getuid?.() !== 0 || !findBinary('Xvnc', PATH) || !findBinary('bwrap', PATH)) {
  console.log('sandbox bench skipped: needs root, Xvnc (tigervnc-standalone-server) and bubblewrap');
  process.exit(0);
}

const quiet = { info: () => {}, error: (m) => process.env.BENCH_VERBOSE && console.error(m) };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function measure(sandbox) {
  const dataDir = mkdtempSync(join(tmpdir(), `aw-bench-sandbox-${sandbox}-`));
  const desktops = createDesktops({
    dataDir, log: quiet,
    env: { PATH, AGENT_UID_BASE: String(5_000_000 + (process.pid % 1000) * 1000), DESKTOP_SANDBOX: sandbox },
    config: { provider: 'xvnc', apps: ['terminal'], displayBase: 400 },
  });
  try {
    const starts = [];
    for (let agent = 1; agent <= 3; agent++) {
      const t = performance.now();
      await desktops.acquire(agent);
      starts.push(performance.now() - t);
      if (agent < 3) await desktops.stop(agent);
    }
    const desktop = await desktops.acquire(3);
    await desktop.settle(500, 5000);
    const latencies = [];
    for (const keysym of keysymsForText('abcdefghijklmnopqrstuvwxyz0123456789abcd')) {
      await desktop.settle(100, 1000, false);
      const shown = new Promise((resolve) => desktop.once('update', resolve));
      const t = performance.now();
      desktop.key(keysym, true);
      desktop.key(keysym, false);
      await Promise.race([shown, sleep(2000)]);
      latencies.push(performance.now() - t);
    }
    return { start: median(starts), latency: median(latencies) };
  } finally {
    await desktops.stopAll();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
}

const off = await measure('off');
const on = await measure('on');
console.log(`sandbox: desktop start ${on.start.toFixed(0)} ms contained, ${off.start.toFixed(0)} ms uncontained (+${(on.start - off.start).toFixed(0)} ms)`);
console.log(`sandbox: key → framebuffer update ${on.latency.toFixed(1)} ms contained, ${off.latency.toFixed(1)} ms uncontained`);
benchResult('sandbox: desktop start, contained vs uncontained (median)', on.start, 'ms', '< uncontained + 1500 ms', off.start);
benchResult('sandbox: key → framebuffer update, contained vs uncontained (median)', on.latency, 'ms', 'unchanged within noise', off.latency);
process.exit(0);
