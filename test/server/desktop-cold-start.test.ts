// A cold start shows a frame first (issue 48): POST /agents/enter answers once Xvnc is up and connected, the viewer
// gets its first frame, and the terminal's window comes after, when the desktop's `ready` resolves. A stop while the
// apps are still starting ends them all: nothing of the agent's uid is left, and nothing starts later.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { desktopUploadHook, type Desktops } from '../../server/desktop/index.ts';
import { findBinary } from '../../server/desktop/host.ts';
import { processesOf } from '../../server/desktop/contain/processes.ts';
import { type LocalDesktops } from '../../server/desktop/place/local-desktops.ts';
import type { Parts } from '../../server/parts.ts';
import { AGENT_UID_BASE, GuacTestClient, removeDataDir, testDesktops } from './desktop-helpers.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';

const HAVE_XVNC = !!findBinary('Xvnc', process.env.PATH ?? '');
const ROOT = process.getuid?.() === 0;
const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(test: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

type Ctx = {
  dir: string;
  manager: LocalDesktops;
  parts: Parts;
  original: { desktops: Desktops; onUpload: Parts['onUpload'] };
  base: string;
  user: { token: string; id: number };
};
const ctx = {} as Ctx;
const cold = suite('desktop: a cold start shows a frame first');

if (!HAVE_XVNC) {
  if (process.env.CI) cold('Xvnc is installed', () => assert.unreachable('Xvnc is missing on CI'));
  else cold.skip('needs Xvnc', () => {});
} else {
  cold.before(async () => {
    const running = await testServer();
    ctx.parts = running.parts;
    ctx.base = running.url.replace('http', 'ws');
    ctx.dir = mkdtempSync(join(tmpdir(), 'aw-cold-start-'));
    ctx.manager = testDesktops({ dataDir: ctx.dir, log: quiet, config: { provider: 'xvnc', apps: ['terminal'], displayBase: 80 } });
    ctx.original = { desktops: ctx.parts.desktops, onUpload: ctx.parts.onUpload };
    ctx.parts.desktops = ctx.manager;
    ctx.parts.onUpload = desktopUploadHook(ctx.manager, quiet);
    ctx.user = await newUser('cold');
  });

  cold.after(async () => {
    await ctx.manager.stopAll();
    ctx.parts.desktops = ctx.original.desktops;
    ctx.parts.onUpload = ctx.original.onUpload;
    removeDataDir(ctx.dir);
  });

  cold('start answers before the apps are up, and a viewer gets its first frame; the apps follow with `ready`', async () => {
    const agent = await newAgent(ctx.user.id, 'Cold agent');
    // Had start waited for the apps, `ready` would have resolved before acquire did: asked at once, it has not.
    const desktop = await ctx.manager.acquire(agent.id);
    const upAtStart = await Promise.race([desktop.ready.then(() => true), Promise.resolve(false)]);
    assert.not.ok(upAtStart, 'start answered before the apps were up');
    const enter = await call('/api/agents/enter', { token: ctx.user.token, body: { agent_id: agent.id } });
    assert.is(enter.status, 200);
    const client = await GuacTestClient.connect(ctx.base + enter.body.guacamole_tunnel_url);
    try {
      await client.until(() => client.frames >= 1, 10_000, 'the first frame');
      await desktop.ready;
      const terminal = () => desktop.windowAt(Math.floor(desktop.width / 4), Math.floor(desktop.height / 2));
      await until(async () => (await terminal()) === 'Terminal', 5000, 'the terminal\'s window under the pointer');
      assert.equal(desktop.cursor(), { x: Math.floor(desktop.width / 4), y: Math.floor(desktop.height / 2) }, 'the pointer went over the terminal');
    } finally {
      client.close();
    }
  });

  cold('a stop while the apps are still starting leaves no process of the agent\'s uid, and none starts later', async () => {
    if (!ROOT) {
      if (process.env.CI) assert.unreachable('per-agent users need root on CI');
      return console.log('  (per-agent users need root: skipped)');
    }
    const agent = await newAgent(ctx.user.id, 'Stopped early');
    const desktop = await ctx.manager.acquire(agent.id);
    const upAtStop = await Promise.race([desktop.ready.then(() => true), Promise.resolve(false)]);
    assert.not.ok(upAtStop, 'stopped while the apps were still starting');
    await ctx.manager.stop(agent.id);
    await desktop.ready; // resolves: the apps' start ended with the stop
    assert.equal(await processesOf(AGENT_UID_BASE + agent.id), [], 'nothing of the agent left');
    await sleep(1500); // a window for a late start to show in: a negative, so no condition to wait on
    assert.equal(await processesOf(AGENT_UID_BASE + agent.id), [], 'nothing of the agent started after the stop');
  });
}

cold.run();
