// Fleet benchmark (issue 18): a viewer relayed through a second instance against one on the instance holding
// the desktop, in one run: two real server processes on one PostgreSQL (BENCH_DATABASE_URL, else
// TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test), one Xvnc desktop running a terminal.
//   1. input-to-pixel: a key typed through the viewer holding control → the frame showing it at that viewer
//      (median; budget: relayed ≤ 1.3 × direct)
//   2. a scrolling terminal: bytes/s and frames/s at each viewer, both watching at once
// Skipped with a line saying why when Xvnc or PostgreSQL is missing.
import { register } from 'node:module';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { benchResult, median } = await import('./bench-result.mjs');
process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const { fleetUnavailable, startFleet, ok, view } = await import('../test/server/fleet-helpers.ts');
const { ADMIN } = await import('../test/server/helpers.ts');
const { keysymsForText } = await import('../server/desktop/rfb/keysyms.ts');

const why = await fleetUnavailable();
if (why) {
  console.log(`fleet bench skipped: ${why}`);
  process.exit(0);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ms = (v) => `${v.toFixed(1)} ms`;
const kb = (v) => `${(v / 1024).toFixed(1)} KiB`;

/** Resolves once the viewer got no frame for quietMs (the screen is still). */
async function quiet(client, quietMs = 200) {
  let frames = client.frames;
  let since = performance.now();
  while (performance.now() - since < quietMs) {
    await sleep(20);
    if (client.frames !== frames) (frames = client.frames), (since = performance.now());
  }
}

const fleet = await startFleet({ DESKTOP_FPS: '15' });
const viewers = [];
try {
  const { a, b } = fleet;
  const token = (await ok(a.url, '/api/auth/sign-in', { body: ADMIN })).token;
  const agent = (await ok(a.url, '/api/agents/', { token, body: { name: 'Fleet bench' } })).id;
  const started = performance.now();
  const direct = await view(a.url, token, agent);
  console.log(`desktop start through A (cold): ${ms(performance.now() - started)}`);
  const t0 = performance.now();
  const relayed = await view(b.url, token, agent);
  console.log(`relayed view through B (relay opened, first frame): ${ms(performance.now() - t0)}`);
  viewers.push(direct.viewer, relayed.viewer);
  // Like the browser: an internal ping every 500 ms.
  const pinger = setInterval(() => viewers.forEach((c) => c.sendRaw(`0.,4.ping,13.${Date.now()};`)), 500);
  const control = (base, who) => ok(base, `/api/agents/${agent}/control`, { token, body: { session_id: who.sessionId, take: true } });
  const type = (client, text) => {
    for (const k of keysymsForText(text)) {
      client.send('key', k, 1);
      client.send('key', k, 0);
    }
  };
  direct.viewer.send('mouse', 300, 400, 0);
  await sleep(1500);

  // 1. input → pixel, in alternating blocks so that both see the same machine load
  const samples = { direct: [], relayed: [] };
  for (let round = 0; round < 4; round++) {
    for (const [name, base, who] of [['direct', a.url, direct], ['relayed', b.url, relayed]]) {
      await control(base, who);
      for (let i = 0; i < 8; i++) {
        await quiet(who.viewer);
        const frames = who.viewer.frames;
        const t = performance.now();
        type(who.viewer, i % 2 ? '\b' : 'x');
        await who.viewer.until(() => who.viewer.frames > frames, 3000, 'frame after key');
        samples[name].push(who.viewer.syncTimes[frames] - t);
      }
    }
  }
  const d = median(samples.direct);
  const r = median(samples.relayed);
  console.log(`1. input-to-pixel (key → frame at the viewer): direct ${ms(d)}, relayed through B ${ms(r)} (${(r / d).toFixed(2)}×)  [budget ≤ 1.3×]`);
  benchResult('fleet: input-to-pixel relayed through a second instance (median)', r, 'ms', '≤ 1.3 × direct', d);

  // 2. scrolling terminal, both viewers at once
  await control(a.url, direct);
  type(direct.viewer, 'clear; while :; do ls -la /usr/bin; done\n');
  await sleep(1500);
  const before = viewers.map((c) => ({ bytes: c.bytes, frames: c.frames }));
  const seconds = 5;
  await sleep(seconds * 1000);
  const [dBytes, rBytes] = viewers.map((c, i) => (c.bytes - before[i].bytes) / seconds);
  const [dFps, rFps] = viewers.map((c, i) => (c.frames - before[i].frames) / seconds);
  direct.viewer.send('key', 0xffe3, 1);
  direct.viewer.send('key', 0x63, 1);
  direct.viewer.send('key', 0x63, 0);
  direct.viewer.send('key', 0xffe3, 0);
  clearInterval(pinger);
  console.log(`2. scrolling terminal: direct ${kb(dBytes)}/s at ${dFps.toFixed(1)} frames/s, relayed ${kb(rBytes)}/s at ${rFps.toFixed(1)} frames/s`);
  benchResult('fleet: scrolling terminal, relayed viewer', rBytes / 1024, 'KiB/s', 'report', dBytes / 1024);
  benchResult('fleet: scrolling terminal frames/s, relayed viewer', rFps, 'frames/s', 'report', dFps);
} finally {
  viewers.forEach((c) => c.close());
  await fleet.close();
}
process.exit(0);
