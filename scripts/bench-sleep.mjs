// Sleeping desktops (issue 48), on the built server over PGlite with contained Xvnc desktops running the default apps
// (a terminal and Chromium), printed, not asserted:
//   1. wake → first frame: POST /agents/enter for a sleeping desktop until its first frame in the tunnel, median of 5
//      (budget ≤ 150 ms), without the test client's JS PNG decode (a browser decodes natively; printed apart)
//   2. CPU of a sleeping desktop over 60 s, from its processes' utime + stime (budget < 10 ms), next to the same
//      desktop awake and idle over 10 s
//   3. density: DENSITY agents (default 40) with Chromium, DENSITY_ACTIVE (10) of them watched and the rest asleep;
//      GET /api/health p99 over 1,000 calls (budget ≤ 50 ms), and the memory the desktops and the server hold
// BENCH_DENSITY=0 skips 3 (it takes minutes and several GB).
import { register } from 'node:module';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, totalmem, freemem } from 'node:os';
import { join } from 'node:path';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { benchResult, median, percentile } = await import('./bench-result.mjs');
const { findBinary } = await import('../server/desktop/host.ts');
if (!findBinary('Xvnc', process.env.PATH ?? '') || process.getuid?.() !== 0) {
  console.log('sleep bench skipped: needs Xvnc (tigervnc-standalone-server) and root (contained desktops)');
  process.exit(0);
}
const { GuacTestClient } = await import('../test/server/desktop-helpers.ts');
const { ADMIN, ensureBuild, freePort, startServer, stop } = await import('./bench-build.mjs');

const DENSITY = Number(process.env.DENSITY ?? 40);
const ACTIVE = Number(process.env.DENSITY_ACTIVE ?? 10);
const UID_BASE = 3_000_000;
const gb = (bytes) => `${(bytes / 2 ** 30).toFixed(2)} GB`;

const dist = ensureBuild();
const dataDir = mkdtempSync(join(tmpdir(), 'aw-bench-sleep-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const memBefore = totalmem() - freemem();
const { child } = await startServer(dist, dataDir, port, {
  DESKTOP_PROVIDER: 'xvnc', DESKTOP_IDLE_SLEEP_S: '2', DESKTOP_MAX: String(Math.max(DENSITY, 8) + 2), AGENT_UID_BASE: String(UID_BASE),
});

async function api(path, { token, body } = {}) {
  const res = await fetch(base + path, {
    method: body ? 'POST' : 'GET',
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

const until = async (test, ms, what) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (await test()) return;
  throw new Error(`timed out waiting for ${what}`);
};

/** Enter and a viewer's first frame; resolves with the viewer and the time it took. */
async function view(token, agentId) {
  const t0 = performance.now();
  const entered = await api('/api/agents/enter', { token, body: { agent_id: agentId } });
  const client = await GuacTestClient.connect(base.replace('http', 'ws') + entered.guacamole_tunnel_url);
  await client.until(() => client.frames > 0, 60_000, 'the first frame');
  // The frame has arrived once its PNG is decoded here, in JS; a browser decodes natively, so that time is not counted.
  return { client, ms: performance.now() - t0 - client.decodeMs, decodeMs: client.decodeMs };
}

const asleep = async (token, agentId) => (await api(`/api/agents/${agentId}`, { token })).desktop_sleeping;

function cpuTicksOf(uid) {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(/^Uid:\s*(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]) !== uid) continue;
      const f = readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {}
  }
  return ticks;
}

try {
  const admin = (await api('/api/auth/sign-in', { body: ADMIN })).token;
  const agent = (await api('/api/agents/', { token: admin, body: { name: 'Sleep bench' } })).id;

  // 1. Wake → first frame.
  const first = await view(admin, agent);
  console.log(`cold enter → first frame (terminal and Chromium): ${first.ms.toFixed(0)} ms`);
  first.client.close();
  const wakes = [];
  const decodes = [];
  for (let i = 0; i < 5; i++) {
    await until(() => asleep(admin, agent), 30_000, 'the desktop to sleep');
    const woken = await view(admin, agent);
    wakes.push(woken.ms);
    decodes.push(woken.decodeMs);
    woken.client.close();
  }
  console.log(`wake → first frame: median ${median(wakes).toFixed(1)} ms (${wakes.map((m) => m.toFixed(0)).join(', ')}), ` +
    `not counting the test client's JS PNG decode (median ${median(decodes).toFixed(0)} ms; a browser decodes natively)`);
  benchResult('sleep: wake → first frame (median of 5)', median(wakes), 'ms', '≤ 150 ms');

  // 2. CPU asleep over 60 s, against awake and idle over 10 s (a watched desktop: a viewer keeps it awake).
  const uid = UID_BASE + agent;
  const watching = await view(admin, agent);
  let t = cpuTicksOf(uid);
  await new Promise((r) => setTimeout(r, 10_000));
  const awakeMs = (cpuTicksOf(uid) - t) * 10;
  watching.client.close();
  await until(() => asleep(admin, agent), 30_000, 'the desktop to sleep');
  t = cpuTicksOf(uid);
  await new Promise((r) => setTimeout(r, 60_000));
  const asleepMs = (cpuTicksOf(uid) - t) * 10;
  console.log(`CPU of the desktop: awake and watched ${awakeMs} ms in 10 s; asleep ${asleepMs} ms in 60 s`);
  benchResult('sleep: CPU of a sleeping desktop in 60 s', asleepMs, 'ms', '< 10 ms', awakeMs * 6);

  // 3. Density.
  if (DENSITY > 0) {
    const ids = [agent];
    for (let i = 1; i < DENSITY; i++) ids.push((await api('/api/agents/', { token: admin, body: { name: `Dense ${i}` } })).id);
    const viewers = [];
    const startedAt = performance.now();
    for (const [i, id] of ids.entries()) {
      const v = await view(admin, id);
      if (i < ACTIVE) viewers.push(v.client);
      else v.client.close();
    }
    console.log(`density: ${DENSITY} desktops started in ${((performance.now() - startedAt) / 1000).toFixed(0)} s`);
    await until(async () => {
      const list = await api('/api/agents/', { token: admin });
      return list.filter((a) => a.desktop_sleeping).length >= DENSITY - ACTIVE;
    }, 120_000, `${DENSITY - ACTIVE} desktops to sleep`);
    const times = [];
    for (let i = 0; i < 1000; i++) {
      const t0 = performance.now();
      await api('/api/health');
      times.push(performance.now() - t0);
    }
    const serverRss = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) * 1024;
    const used = totalmem() - freemem() - memBefore;
    const [p50, p99] = [percentile(times, 50).toFixed(1), percentile(times, 99).toFixed(1)];
    console.log(`density: ${DENSITY - ACTIVE} asleep, ${ACTIVE} watched: /api/health p50 ${p50} ms, p99 ${p99} ms; ` +
      `memory used ${gb(used)} (server RSS ${gb(serverRss)})`);
    benchResult(`sleep: /api/health p99 with ${DENSITY - ACTIVE} desktops asleep and ${ACTIVE} watched`, percentile(times, 99), 'ms', '≤ 50 ms');
    benchResult(`sleep: memory used by ${DENSITY} desktops with Chromium and the server`, used / 2 ** 30, 'GB', 'report');
    for (const v of viewers) v.close();
  }
} finally {
  await stop(child);
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
}
