// Desktops against a real TigerVNC Xvnc: RFB, the Guacamole tunnel through the real server, screenshots,
// control, clipboard, actions, crash recovery and the Xvnc pitfalls. One desktop (terminal only, to spare
// the CPU) is shared by the whole file, in a temporary data directory; without Xvnc the file is skipped
// with a message (CI installs it, so there it runs).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeOwnPng } from '../../server/desktop/rfb/png.ts';
import { desktopUploadHook, performAction, type Desktops } from '../../server/desktop/index.ts';
import { findBinary } from '../../server/desktop/host.ts';
import { keysymsForText } from '../../server/desktop/rfb/keysyms.ts';
import { RfbClient, RfbError, vncPasswordFile } from '../../server/desktop/rfb/client.ts';
import { xvncPidFile } from '../../server/desktop/start/xvnc.ts';
import { type LocalDesktops } from '../../server/desktop/place/local-desktops.ts';
import { type RfbDesktop } from '../../server/desktop/rfb/desktop.ts';
import type { Parts } from '../../server/parts.ts';
import { AGENT_UID_BASE, diffPixels, GuacTestClient, removeDataDir, testDesktops, testXvnc } from './desktop-helpers.ts';
import { rawScreen } from './raw-viewer.ts';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';
import { TOPICS } from '../../server/realtime/topics.ts';

const HAVE_XVNC = !!findBinary('Xvnc', process.env.PATH ?? '');
/** What the desktops logged as errors (the flood test looks for its line). */
const errors: string[] = [];
const quiet = {
  info: () => {},
  error: (m: string) => {
    errors.push(m);
    if (process.env.TEST_VERBOSE) console.error(m);
  },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Ctx = {
  dir: string;
  manager: LocalDesktops;
  parts: Parts;
  original: { desktops: Desktops; onUpload: Parts['onUpload'] };
  user: { token: string; id: number };
  agent: { id: number };
  base: string;
};
const ctx = {} as Ctx;

async function until(test: () => boolean | Promise<boolean>, ms = 5000, what = 'condition') {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const home = () => join(ctx.dir, 'desktops', `agent-${ctx.agent.id}`);
// Agent ids of the providers some tests start beside the shared desktop: a desktop's uid (and its network
// namespace) is its agent id's, so these must not meet the test server's agents.
const [OWN_WM, OWN, OTHER] = [901, 902, 903];
const xvncInfo = () => {
  const [pid, display] = readFileSync(xvncPidFile(ctx.dir, ctx.agent.id), 'latin1').split('\n');
  return { pid: Number(pid), display: Number(display) };
};
const desktop = () => ctx.manager.acquire(ctx.agent.id);
const viewersGone = async () => (await call(`/api/agents/${ctx.agent.id}/desktop`, { token: ctx.user.token })).body.viewers === 0;
/** The running desktop's sandbox: X clients of the tests reach its display only from inside, as its apps do. */
const sandbox = () => ctx.manager.xvnc!.sandboxOf(ctx.agent.id)!;
/** Where the server reaches the desktop's RFB socket (moved out of the agent's /tmp once Xvnc made it). */
const rfbSocket = () => (ctx.manager.running(ctx.agent.id)!.target as { path: string }).path;
/** The pid of the `cat` that reads the desktop's sound FIFO in its sandbox (once its drain is done), if one runs. */
const soundReader = () => readdirSync('/proc').find((pid) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'latin1').trim() === 'cat' && readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('.sound.fifo');
  } catch {
    return false;
  }
});

/** Runs a program on the desktop (DISPLAY set), as its apps run; resolves with its exit code and output. */
function inDesktop(cmd: string, args: string[], options: { input?: string | Buffer; env?: NodeJS.ProcessEnv } = {}) {
  const child = sandbox().spawn(cmd, args, { env: { DISPLAY: `:${xvncInfo().display}`, ...options.env }, stdio: ['pipe', 'pipe', 'ignore'] });
  if (options.input !== undefined) child.stdin!.end(options.input);
  else child.stdin!.end();
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const done = new Promise<{ code: number; out: string }>((resolve) => child.once('close', (code) => resolve({ code: code ?? 1, out })));
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  void done.then(() => clearTimeout(timer));
  return { child, done };
}

/** Viewers a test opened: closed after it, so that one that failed leaves none behind for the next. */
const opened: GuacTestClient[] = [];

async function viewer(token = ctx.user.token, agentId = ctx.agent.id): Promise<{ client: GuacTestClient; sessionId: string }> {
  const res = await call('/api/agents/enter', { token, body: { agent_id: agentId } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const client = await GuacTestClient.connect(ctx.base + res.body.guacamole_tunnel_url);
  opened.push(client);
  await client.until(() => client.frames >= 1, 10_000, 'first frame');
  return { client, sessionId: res.body.session_id };
}

/** Waits until the server has handled everything the client sent before (the tunnel echoes pings in order). */
let pings = 1_800_000_000_000;
async function roundTrip(client: GuacTestClient) {
  const ts = String(++pings);
  client.sendRaw(`0.,4.ping,${ts.length}.${ts};`);
  await client.until(() => client.log.some((i) => i.opcode === '' && i.args[0] === 'ping' && i.args[1] === ts), 10_000, 'the ping echo');
}

async function typeThrough(client: GuacTestClient, text: string) {
  for (const k of keysymsForText(text)) {
    client.send('key', k, 1);
    client.send('key', k, 0);
  }
}

/** Waits until the viewer's canvas equals the server framebuffer (the screen has to be still). */
async function sameAsServer(client: GuacTestClient, d: RfbDesktop, ms = 8000) {
  let last = -1;
  await until(async () => {
    await d.settle(200, 2000);
    last = diffPixels(client.canvas, d.framebuffer().data);
    return last === 0;
  }, ms, 'viewer canvas to equal the framebuffer').catch((err) => {
    throw new Error(`${err.message}: ${last} pixels differ`);
  });
}

async function xclip(args: string[], input?: string): Promise<string> {
  const { code, out } = await inDesktop('xclip', args, { input }).done;
  if (code !== 0) throw new Error(`xclip exited ${code}`);
  return out;
}

// ---

const xvnc = suite('desktop: Xvnc, RFB and the tunnel');

if (!HAVE_XVNC) {
  console.log('\n  ⚠ desktop tests against Xvnc skipped: the Xvnc binary is not installed (apt-get install tigervnc-standalone-server)\n');
  // On CI a missing Xvnc is a broken install (.ci/run installs it), not a reason to skip.
  if (process.env.CI) xvnc('Xvnc is installed', () => assert.unreachable('Xvnc is missing on CI'));
  else xvnc.skip('needs Xvnc', () => {});
} else {
  xvnc.before(async () => {
    const running = await testServer();
    ctx.parts = running.parts;
    ctx.base = running.url.replace('http', 'ws');
    ctx.dir = mkdtempSync(join(tmpdir(), 'aw-desktop-test-'));
    ctx.manager = testDesktops({ dataDir: ctx.dir, log: quiet, config: { provider: 'xvnc', apps: ['terminal'], displayBase: 60 } });
    // This file's desktops live in a temporary directory, not in the shared test server's data dir.
    ctx.original = { desktops: ctx.parts.desktops, onUpload: ctx.parts.onUpload };
    ctx.parts.desktops = ctx.manager;
    ctx.parts.onUpload = desktopUploadHook(ctx.manager, quiet);
    (globalThis as any).__teardown?.push(async () => {
      await ctx.manager.stopAll();
      rmSync(ctx.dir, { recursive: true, force: true, maxRetries: 5 });
    });
    const user = await newUser('desk');
    ctx.user = user;
    ctx.agent = await newAgent(user.id, 'Desk agent');
  });

  xvnc.after.each(() => {
    for (const client of opened.splice(0)) client.close();
  });

  xvnc.after(async () => {
    await ctx.manager.stopAll();
    ctx.parts.desktops = ctx.original.desktops;
    ctx.parts.onUpload = ctx.original.onUpload;
  });

  xvnc('Xvnc runs with -AlwaysShared, -s 0, no TCP and a 0600 Unix socket; status says xvnc', async () => {
    await desktop();
    const cmd = readFileSync(`/proc/${xvncInfo().pid}/cmdline`, 'latin1').split('\0');
    const has = (...seq: string[]) => cmd.some((_, i) => seq.every((s, j) => cmd[i + j] === s));
    assert.ok(has('-AlwaysShared'), cmd.join(' '));
    assert.ok(has('-s', '0'));
    assert.ok(has('-rfbport', '-1'));
    assert.ok(has('-nolisten', 'tcp'));
    assert.ok(has('-SecurityTypes', 'None'));
    assert.ok(has('-rfbunixmode', '0600'));
    assert.is(statSync(rfbSocket()).mode & 0o777, 0o600);
    // The X display wants the desktop's cookie: other local users' clients are refused.
    assert.ok(has('-auth', join(sandbox().insideHome, '.Xauthority')));
    if (findBinary('xprop', process.env.PATH ?? '')) {
      const run = async (env: NodeJS.ProcessEnv) => (await inDesktop('xprop', ['-root', '_XKB_RULES_NAMES'], { env }).done).code;
      assert.is(await run({}), 0);
      assert.is(await run({ XAUTHORITY: '/nonexistent' }), 1);
    }
    const status = await call('/api/desktops/status', { token: ctx.user.token });
    assert.equal(status.body, { available: true, provider: 'xvnc' });
  });

  xvnc('RFB: 1280x800, TigerVNC extended clipboard, a full frame of opaque pixels', async () => {
    const d = (await desktop()) as RfbDesktop;
    assert.is(d.width, 1280);
    assert.is(d.height, 800);
    assert.ok(d.rfb.extendedClipboard);
    const fb = d.framebuffer();
    assert.is(fb.data.length, 1280 * 800 * 4);
    let opaque = true;
    for (let i = 3; i < fb.data.length; i += 4) if (fb.data[i] !== 255) opaque = false;
    assert.ok(opaque, 'alpha is 255 everywhere');
  });

  xvnc('Hextile: our framebuffer equals a Raw viewer\'s pixel for pixel, from a fraction of its bytes', async () => {
    const d = (await desktop()) as RfbDesktop;
    let last = '';
    await until(async () => {
      await d.settle(200, 2000);
      const raw = await rawScreen(rfbSocket());
      const sock = connect(rfbSocket());
      let bytes = 0;
      sock.on('data', (chunk) => (bytes += chunk.length));
      const ours = await RfbClient.over(sock, { frameInterval: 60_000 });
      try {
        await until(() => ours.updates >= 1, 5000, 'the first update');
        const differ = diffPixels(ours.fb, raw.data);
        last = `${differ} pixels differ; ${bytes} bytes against Raw's ${raw.bytes}`;
        return differ === 0 && bytes < raw.bytes / 10;
      } finally {
        ours.close();
      }
    }, 15_000, 'the same screen from both').catch((err) => {
      throw new Error(`${err.message}: ${last}`);
    });
  });

  xvnc('the terminal shows up by itself: the window manager is up before apps start', async () => {
    // Own Xvnc without the initial pointer move, so that no input at all hides the race.
    const dir = mkdtempSync(join(tmpdir(), 'aw-wm-race-'));
    const provider = testXvnc({ dataDir: dir, log: quiet, apps: ['terminal'], displayBase: 80, pointerToTerminal: false });
    const d = await provider.start(OWN_WM);
    try {
      const white = () => {
        const { data, width } = d.framebuffer();
        let n = 0;
        for (let y = 100; y < 700; y += 10) for (let x = 50; x < 600; x += 10) if (data[(y * width + x) * 4] > 240) n++;
        return n > 500;
      };
      await until(white, 5000, 'the white terminal window');
    } finally {
      await d.stop();
      removeDataDir(dir);
    }
  });

  xvnc('under root each desktop runs as its own user, shut out of the server\'s data and other agents\' homes', async () => {
    if (process.getuid?.() !== 0) return console.log('  (per-agent users need a server running as root: skipped)');
    const dir = mkdtempSync(join(tmpdir(), 'aw-isolation-'));
    // Server data as a careless umask would leave it: world-readable.
    mkdirSync(join(dir, 'pg'), { mode: 0o755 });
    writeFileSync(join(dir, 'pg', 'secret'), 'server secret', { mode: 0o644 });
    const source = join(dir, 'upload.txt');
    writeFileSync(source, 'for agent 2 only', { mode: 0o600 });
    process.env.AW_TEST_SECRET = 'server-only-value';
    const provider = testXvnc({ dataDir: dir, log: quiet, apps: ['terminal'], displayBase: 85 });
    const otherFile = await provider.putFile(OTHER, source, 'private.txt');
    assert.is(statSync(otherFile).uid, AGENT_UID_BASE + OTHER);
    const d = await provider.start(OWN);
    try {
      const home1 = provider.homeOf(OWN);
      const [pid] = readFileSync(xvncPidFile(dir, OWN), 'latin1').split('\n');
      assert.match(readFileSync(`/proc/${pid}/status`, 'latin1'), new RegExp(`\\nUid:\\s+${AGENT_UID_BASE + OWN}\\s`));
      assert.is(statSync(dir).mode & 0o777, 0o711, 'the data directory lets agents through, not look');
      assert.is(statSync(join(dir, 'pg')).mode & 0o777, 0o700);

      const white = () => d.framebuffer().data[(100 * 1280 + 100) * 4] > 240;
      await until(white, 5000, 'the terminal');
      await d.typeText(`env > ~/Desktop/env.txt; id -u > ~/Desktop/uid.txt; cat ${dir}/pg/secret ${otherFile} > ~/Desktop/leak.txt 2> ~/Desktop/err.txt\n`);
      const err = join(home1, 'Desktop', 'err.txt');
      await until(() => existsSync(err) && readFileSync(err, 'utf8').split('\n').length > 2, 8000, 'the shell to finish');
      assert.is(readFileSync(join(home1, 'Desktop', 'uid.txt'), 'utf8'), `${AGENT_UID_BASE + OWN}\n`);
      assert.is(readFileSync(join(home1, 'Desktop', 'leak.txt'), 'utf8'), '');
      // Nor does the server's environment reach it (API keys, DATABASE_URL), not even through /proc.
      const env = readFileSync(join(home1, 'Desktop', 'env.txt'), 'utf8');
      assert.match(env, /^DISPLAY=:\d+$/m);
      assert.not.match(env, /server-only-value/);
      assert.not.match(readFileSync(`/proc/${pid}/environ`, 'latin1'), /server-only-value/);
      // Contained, the paths do not exist in its world; uncontained, they are closed to its user.
      assert.is(readFileSync(err, 'utf8').match(/Permission denied|No such file or directory/g)?.length, 2, readFileSync(err, 'utf8'));

      // A ~/Desktop the agent turned into a link is replaced, not followed, when a file arrives.
      const victim = mkdtempSync(join(tmpdir(), 'aw-victim-'));
      rmSync(join(home1, 'Desktop'), { recursive: true });
      symlinkSync(victim, join(home1, 'Desktop'));
      const put = await provider.putFile(OWN, source, 'dropped.txt');
      assert.equal(readdirSync(victim), []);
      assert.ok(lstatSync(join(home1, 'Desktop')).isDirectory());
      assert.is(readFileSync(put, 'utf8'), 'for agent 2 only');
      assert.is(statSync(put).uid, AGENT_UID_BASE + OWN);
      rmSync(victim, { recursive: true });
    } finally {
      delete process.env.AW_TEST_SECRET;
      await d.stop();
      removeDataDir(dir);
    }
  });

  xvnc('typing brings incremental updates of small rectangles, quickly', async () => {
    const d = (await desktop()) as RfbDesktop;
    await until(() => d.framebuffer().data[(100 * 1280 + 100) * 4] > 240, 5000, 'terminal');
    await d.settle(200, 2000);
    const updates: { rects: any[]; at: number }[] = [];
    const on = (rects: any[]) => updates.push({ rects, at: performance.now() });
    d.on('update', on);
    const sent = performance.now();
    await d.typeText('x');
    await until(() => updates.length > 0, 2000, 'an update');
    d.off('update', on);
    const area = updates[0].rects.reduce((n, r) => n + r.w * r.h, 0);
    assert.ok(area > 0 && area < 1280 * 800 / 10, `area ${area}`);
    assert.ok(updates[0].at - sent < 500, `${(updates[0].at - sent).toFixed(0)} ms`);
    await d.typeText('\b');
  });

  xvnc('enter → tunnel: subprotocol echoed, uuid first, name, size, mask-14 frame, sync; canvas = framebuffer', async () => {
    const d = (await desktop()) as RfbDesktop;
    const { client, sessionId } = await viewer();
    assert.is(client.protocol, 'guacamole');
    assert.is(client.log[0].opcode, '');
    assert.equal(client.log[0].args, [sessionId]);
    assert.equal(client.opcodes().slice(1, 4), ['name', 'size', 'img']);
    assert.equal(client.log[1].args, ['Desk agent']);
    assert.equal(client.log[2].args, ['0', '1280', '800']);
    assert.ok(client.log.filter((i) => i.opcode === 'img').every((i) => i.args[1] === '14'));
    await sameAsServer(client, d);
    client.close();
  });

  xvnc('a ticket is single use, and other users cannot enter', async () => {
    const res = await call('/api/agents/enter', { token: ctx.user.token, body: { agent_id: ctx.agent.id } });
    assert.not.match(res.body.guacamole_tunnel_url, /\?/);
    const first = await GuacTestClient.connect(ctx.base + res.body.guacamole_tunnel_url);
    await first.until(() => first.frames >= 1);
    const again = await GuacTestClient.connect(ctx.base + res.body.guacamole_tunnel_url);
    await again.until(() => again.closed !== null);
    assert.is(again.closed!.code, 4403);
    first.close();
    const stranger = await newUser('stranger');
    const denied = await call('/api/agents/enter', { token: stranger.token, body: { agent_id: ctx.agent.id } });
    assert.is(denied.status, 404);
    const shot = await call(`/api/agents/${ctx.agent.id}/screenshot`, { token: stranger.token });
    assert.is(shot.status, 404);
  });

  xvnc('screenshot endpoint: the live framebuffer as PNG, also stored for the agents grid', async () => {
    const d = (await desktop()) as RfbDesktop;
    await d.settle(300, 3000);
    const { url } = await testServer();
    const res = await fetch(`${url}/api/agents/${ctx.agent.id}/screenshot`, { headers: { Authorization: `Bearer ${ctx.user.token}` } });
    assert.is(res.status, 200);
    assert.is(res.headers.get('content-type'), 'image/png');
    const png = Buffer.from(await res.arrayBuffer());
    assert.is(diffPixels(decodeOwnPng(png).data, d.framebuffer().data), 0);
    await until(async () => (await call(`/api/agents/${ctx.agent.id}`, { token: ctx.user.token })).body.screenshot_url !== null, 3000, 'screenshot_url');
    assert.ok(existsSync(join(ctx.parts.config.dataDir, 'files', `agent-${ctx.agent.id}`, 'screenshot.png')));
  });

  xvnc('two viewers see the same picture; only the viewer holding control reaches the desktop', async () => {
    const d = (await desktop()) as RfbDesktop;
    const a = await viewer();
    const b = await viewer();
    const file = (name: string) => join(home(), 'Desktop', name);
    for (const name of ['from-a.txt', 'from-b.txt', 'marker-1.txt', 'marker-2.txt']) rmSync(file(name), { force: true });
    // Without control, nothing gets through. Whatever got through would reach the shell before the marker
    // line that follows it on the same socket, so the marker proves the earlier keys were dropped.
    await typeThrough(a.client, 'echo no > ~/Desktop/from-a.txt\n');
    await roundTrip(a.client);

    const take = await call(`/api/agents/${ctx.agent.id}/control`, { token: ctx.user.token, body: { session_id: a.sessionId, take: true } });
    assert.equal(take.body, { session_id: a.sessionId, control: true });
    await typeThrough(b.client, 'echo no > ~/Desktop/from-b.txt\n');
    await roundTrip(b.client);
    a.client.send('mouse', 300, 300, 0);
    await typeThrough(a.client, 'echo yes >> ~/Desktop/from-a.txt; echo 1 > ~/Desktop/marker-1.txt\n');
    await until(() => existsSync(file('marker-1.txt')), 10_000, 'the first marker');
    assert.not.ok(existsSync(file('from-b.txt')));
    assert.is(readFileSync(file('from-a.txt'), 'utf8'), 'yes\n');

    // Someone else's control request is refused.
    const stranger = await newUser('ctl');
    const refused = await call(`/api/agents/${ctx.agent.id}/control`, { token: stranger.token, body: { session_id: a.sessionId, take: true } });
    assert.is(refused.status, 404);
    // Giving control back makes A read-only again.
    await call(`/api/agents/${ctx.agent.id}/control`, { token: ctx.user.token, body: { session_id: a.sessionId, take: false } });
    await typeThrough(a.client, 'echo again >> ~/Desktop/from-a.txt\n');
    await roundTrip(a.client);
    await call(`/api/agents/${ctx.agent.id}/control`, { token: ctx.user.token, body: { session_id: b.sessionId, take: true } });
    await typeThrough(b.client, 'echo 2 > ~/Desktop/marker-2.txt\n');
    await until(() => existsSync(file('marker-2.txt')), 10_000, 'the second marker');
    assert.is(readFileSync(file('from-a.txt'), 'utf8'), 'yes\n');

    await sameAsServer(a.client, d);
    await sameAsServer(b.client, d);
    a.client.close();
    b.client.close();
  });

  xvnc('a scrolling terminal: many RFB rects per update, a few images per frame, mask 14 everywhere', async () => {
    const d = (await desktop()) as RfbDesktop;
    const a = await viewer();
    await call(`/api/agents/${ctx.agent.id}/control`, { token: ctx.user.token, body: { session_id: a.sessionId, take: true } });
    let maxRfbRects = 0;
    const on = (rects: any[]) => (maxRfbRects = Math.max(maxRfbRects, rects.length));
    d.on('update', on);
    const framesBefore = a.client.frames;
    const done = join(home(), 'Desktop', 'scrolled.txt');
    rmSync(done, { force: true });
    a.client.send('mouse', 300, 300, 0);
    await typeThrough(a.client, 'clear; for i in $(seq 1 400); do echo "line $i $RANDOM $RANDOM $RANDOM"; done; echo 400 > ~/Desktop/scrolled.txt\n');
    // However loaded the machine, the whole scroll happens before the checks: the shell says when it is done.
    await until(() => existsSync(done), 20_000, 'the 400 lines to scroll by');
    await sameAsServer(a.client, d, 20_000);
    d.off('update', on);
    const log = a.client.log;
    const imgs = log.filter((i) => i.opcode === 'img');
    const copies = log.filter((i) => i.opcode === 'copy');
    assert.ok(imgs.every((i) => i.args[1] === '14'), 'img mask 14');
    assert.ok(copies.every((i) => i.args[5] === '14'), 'copy mask 14');
    // Per frame (between syncs) the gateway sends at most 8 images, whatever Xvnc sent.
    let perFrame = 0, maxPerFrame = 0;
    for (const i of log) {
      if (i.opcode === 'img') perFrame++;
      if (i.opcode === 'sync') (maxPerFrame = Math.max(maxPerFrame, perFrame)), (perFrame = 0);
    }
    assert.ok(maxPerFrame <= 8, `${maxPerFrame} images in one frame`);
    // A loaded machine may coalesce the whole scroll into one frame; at least that one must have come.
    assert.ok(a.client.frames > framesBefore, 'frames during the scroll');
    if (process.env.TEST_VERBOSE) console.log(`scroll: max ${maxRfbRects} RFB rects per update, ${copies.length} copies, max ${maxPerFrame} images per frame`);
    a.client.close();
  });

  xvnc('clipboard both ways keeps "café ✓ 😀"', async () => {
    if (!findBinary('xclip', process.env.PATH ?? '')) return console.log('  (clipboard check needs xclip: skipped)');
    const a = await viewer();
    await call(`/api/agents/${ctx.agent.id}/control`, { token: ctx.user.token, body: { session_id: a.sessionId, take: true } });
    const bytes = Buffer.from('café ✓ 😀', 'utf8');
    a.client.send('clipboard', 5, 'text/plain');
    a.client.send('blob', 5, bytes.toString('base64'));
    a.client.send('end', 5);
    await until(async () => (await xclip(['-o', '-selection', 'clipboard']).catch(() => '')) === 'café ✓ 😀', 5000, 'X clipboard');
    // The other way: an X client sets the clipboard, the viewer gets it (-quiet: in the foreground, since a
    // sandboxed command's background children end with it).
    const { child } = inDesktop('xclip', ['-i', '-quiet', '-selection', 'clipboard', '-loops', '3'], { input: 'naïve ✓ 😀 back' });
    try {
      await a.client.until(() => a.client.clipboard.includes('naïve ✓ 😀 back'), 5000, 'clipboard instruction');
    } finally {
      child.kill();
    }
    a.client.close();
  });

  xvnc('the tunnel echoes the internal ping; malformed instructions close only that tunnel, with 768', async () => {
    const a = await viewer();
    const b = await viewer();
    a.client.sendRaw('0.,4.ping,13.1700000000042;');
    await a.client.until(() => a.client.log.some((i) => i.opcode === '' && i.args[1] === '1700000000042'), 3000, 'ping echo');
    b.client.sendRaw('5.mouse,3.100;x');
    await b.client.until(() => b.client.closed !== null, 3000, 'close');
    assert.equal(b.client.closed, { code: 1008, reason: '768' });
    assert.ok(b.client.log.some((i) => i.opcode === 'error' && i.args[1] === '768'));
    a.client.sendRaw('0.,4.ping,13.1700000000043;');
    await a.client.until(() => a.client.log.some((i) => i.args[1] === '1700000000043'), 3000, 'still alive');
    a.client.close();
  });

  xvnc('an upload lands in the desktop\'s Desktop folder as well', async () => {
    const form = new FormData();
    form.append('file', new Blob(['dropped content']), 'notes for the agent.txt');
    const { url } = await testServer();
    const res = await fetch(`${url}/api/agents/${ctx.agent.id}/upload_file`,
      { method: 'POST', headers: { Authorization: `Bearer ${ctx.user.token}` }, body: form });
    assert.is(res.status, 200);
    assert.is(readFileSync(join(home(), 'Desktop', 'notes for the agent.txt'), 'utf8'), 'dropped content');
    // The answer says where the copy landed; a name already taken there gets a number.
    assert.is((await res.json()).desktop_file, '~/Desktop/notes for the agent.txt');
    const again = await fetch(`${url}/api/agents/${ctx.agent.id}/upload_file`,
      { method: 'POST', headers: { Authorization: `Bearer ${ctx.user.token}` }, body: form });
    assert.is((await again.json()).desktop_file, '~/Desktop/notes for the agent (1).txt');
  });

  xvnc('performAction: click, type and key reach the terminal; events carry screen fractions', async () => {
    const d = (await desktop()) as RfbDesktop;
    const events: any[] = [];
    const publish = (topic: string, payload: unknown) => events.push({ topic, payload });
    rmSync(join(home(), 'Desktop', 'act.txt'), { force: true });
    const click = await performAction(d, { action: 'left_click', coordinate: [320, 400] }, { publish });
    assert.ok(click.screenshot && click.screenshot.length > 100);
    await performAction(d, { action: 'type', text: 'echo acted ✓ > ~/Desktop/act.txt' }, { publish });
    await performAction(d, { action: 'key', text: 'Return' }, { publish });
    await until(() => existsSync(join(home(), 'Desktop', 'act.txt')), 5000, 'act.txt');
    assert.is(readFileSync(join(home(), 'Desktop', 'act.txt'), 'utf8'), 'acted ✓\n');
    assert.equal(events.map((e) => e.payload.kind), ['click', 'type', 'key']);
    assert.ok(events.every((e) => e.topic === TOPICS.agentActions(ctx.agent.id)));
    assert.ok(Math.abs(events[0].payload.x - 320 / 1279) < 1e-9 && Math.abs(events[0].payload.y - 400 / 799) < 1e-9);
    assert.equal((await performAction(d, { action: 'cursor_position' }, { publish })).text, 'X=320,Y=400');
    try {
      await performAction(d, { action: 'left_click', coordinate: [5000, 1] }, { publish });
      assert.unreachable();
    } catch (err) {
      assert.match((err as Error).message, /outside the 1280x800 screen/);
    }
  });

  xvnc('the window under a click: the X server answers the server\'s own X11 client, with no program started per lookup', async () => {
    const d = (await desktop()) as RfbDesktop;
    const box = sandbox();
    const spawn = box.spawn;
    const started: string[] = [];
    box.spawn = (command, args, options) => (started.push(command), spawn.call(box, command, args, options));
    try {
      assert.is(await d.windowAt(200, 300), 'Terminal');
      assert.is(await d.windowAt(1000, 400), null, 'the background');
      assert.equal(await Promise.all([d.windowAt(100, 100), d.windowAt(600, 700)]), ['Terminal', 'Terminal']);
      assert.equal(started, [], 'nothing was started on the desktop');
    } finally {
      box.spawn = spawn;
    }
  });

  xvnc('sound: what a desktop program plays reaches the viewer as raw PCM; silence sends nothing', async () => {
    const d = (await desktop()) as RfbDesktop;
    if (!d.sound) {
      // CI installs PulseAudio (.ci/run); elsewhere a desktop without it simply has no sound.
      if (process.env.CI) assert.unreachable('the desktop has no sound server on CI');
      return console.log('  (sound check needs pulseaudio: skipped)');
    }
    // Earlier tests' viewers close asynchronously: capture must start and stop with this test's viewer alone.
    await until(viewersGone, 20_000, 'the earlier viewers to leave');
    assert.not.ok(d.sound.capturing, 'no capture without viewers');
    const { client } = await viewer();
    await until(() => d.sound!.capturing, 10_000, 'capture to start with a viewer');
    // Started through the sandbox, the reader may take a while on a loaded machine: what plays before it reads is lost.
    await until(() => !!soundReader(), 10_000, 'the FIFO reader');

    // A second of digital silence, then two seconds of a 440 Hz tone, played the way the desktop's programs
    // play: through its PULSE_SERVER. What reaches the viewer is the tone alone.
    const rate = 44100;
    const silence = rate * 4;
    const tone = Buffer.alloc(rate * 4 * 2);
    for (let i = 0; i < rate * 2; i++) {
      const v = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate));
      tone.writeInt16LE(v, i * 4);
      tone.writeInt16LE(v, i * 4 + 2);
    }
    const played = inDesktop('pacat', ['--raw', '--format=s16le', `--rate=${rate}`, '--channels=2'], {
      env: d.sound.env, input: Buffer.concat([Buffer.alloc(silence), tone]),
    }).done.then((r) => r.code);
    const received = () => client.audio.reduce((n, b) => n + b.length, 0);
    // Sound goes in real time: what would come late is dropped, not queued. A sound server starved on a
    // loaded machine catches up in bursts, and what does not fit the FIFO is lost (a CI run once got less
    // than 90% of a one-second tone). So: the whole tone played, and at least half of it came.
    assert.is(await played, 0);
    await client.until(() => received() >= tone.length / 2, 20_000, 'half of the tone');
    // Silence is never sent: before the tone (the idle desktop and the played second), nor after it. The
    // tone itself is exactly zero on both channels at ~20 frames a second; a second of silence is 44100.
    // (Not a byte count: under load PulseAudio may hand part of the tone over twice.)
    const pcmSoFar = Buffer.concat(client.audio);
    let silentFrames = 0;
    for (let at = 0; at + 4 <= pcmSoFar.length; at += 4) if (pcmSoFar.readInt32LE(at) === 0) silentFrames++;
    assert.ok(silentFrames < 200, `${silentFrames} silent frames in ${pcmSoFar.length} bytes for a ${tone.length}-byte tone after ${silence} bytes of silence`);
    assert.equal(client.audioTypes, ['audio/L16;rate=44100,channels=2']);
    assert.ok(client.audio.every((b) => b.length % 4 === 0), 'every blob holds whole stereo frames');

    // The samples are the tone: its loudness, and 440 Hz counted by zero crossings of the left channel.
    const pcm = Buffer.concat(client.audio);
    let peak = 0;
    let crossings = 0;
    let playing = 0;
    let previous = 0;
    for (let at = 0; at + 4 <= pcm.length; at += 4) {
      const left = pcm.readInt16LE(at);
      peak = Math.max(peak, Math.abs(left));
      if (left !== 0) playing++;
      if ((previous < 0 && left >= 0) || (previous >= 0 && left < 0)) crossings++;
      previous = left;
    }
    assert.ok(peak > 7000 && peak <= 8001, `peak ${peak}`);
    const hz = crossings / 2 / (playing / rate);
    assert.ok(hz > 420 && hz < 460, `${hz.toFixed(0)} Hz`);

    client.close();
    await until(viewersGone, 20_000, 'the viewer to leave');
    await until(() => !d.sound!.capturing, 5000, 'capture to stop with the last viewer');
  });

  xvnc('sound: a silent desktop gives nothing to read; a FIFO the agent floods is read no further', async () => {
    const d = (await desktop()) as RfbDesktop;
    if (!d.sound) {
      if (process.env.CI) assert.unreachable('the desktop has no sound server on CI');
      return console.log('  (sound check needs pulseaudio: skipped)');
    }
    await until(viewersGone, 20_000, 'the earlier viewers to leave');
    // Played while nobody watches: the sink writes it into the FIFO, and nobody reads it then.
    const tenth = Buffer.alloc(44100 * 4 / 10, 0x11);
    const play = async () => {
      const pacat = inDesktop('pacat', ['--raw', '--format=s16le', '--rate=44100', '--channels=2'], { env: d.sound!.env, input: tenth });
      assert.is((await pacat.done).code, 0);
    };
    await play();
    const first = await viewer();
    await until(() => d.sound!.capturing, 10_000, 'capture to start with a viewer');
    await until(() => !!soundReader(), 10_000, 'the FIFO reader');
    // What the reader in the desktop's sandbox has read so far, from outside: its /proc io counter.
    const read = () => Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${soundReader()}/io`, 'latin1'))![1]);
    /** Resolves once nothing more was read over a whole second (the sink suspends a second after the last sound). */
    const stillFor = async (what: string) => {
      let last = -1;
      await until(async () => {
        const now = read();
        if (now === last) return true;
        last = now;
        await sleep(1000);
        return false;
      }, 10_000, what);
      return last;
    };
    const idle = await stillFor('an idle desktop to give nothing to read');
    assert.is(first.client.audio.length, 0, 'what played while nobody watched is not heard later');
    await play();
    await until(() => read() > idle, 5000, 'the sound to be read');
    await first.client.until(() => first.client.audio.length > 0, 5000, 'the sound to reach the viewer');
    await stillFor('reading to stop once the sound ended');

    // The FIFO is the agent's file. Made an endless source (a link to /dev/zero in its sandbox), it floods the
    // next reader: far more than real time, so the server stops reading while the viewer is still there.
    first.client.close();
    await until(() => !d.sound!.capturing, 20_000, 'capture to stop with the viewer');
    const fifo = sandbox().hostPath(sandbox().socket('.sound.fifo'));
    assert.ok(lstatSync(fifo).isFIFO(), 'the sink writes into a FIFO');
    rmSync(fifo);
    symlinkSync('/dev/zero', fifo);
    const logged = errors.length;
    const second = await viewer();
    // Reading starts with the viewer and stops at the flood, often between two looks: the log line is what stays.
    const flood = () => errors.slice(logged).some((m) => m.includes('bytes in a second from the desktop'));
    await until(flood, 10_000, 'the flood to be logged');
    assert.not.ok(d.sound.capturing, 'reading stopped');
    await until(() => !soundReader(), 10_000, 'the reader in the sandbox to end');
    assert.not.ok(await viewersGone(), 'the viewer is still there');
    assert.is(second.client.audio.length, 0, 'zeros are silence: nothing reached the viewer');
    second.client.close();
    rmSync(fifo);
  });

  xvnc('Xvnc killed with SIGKILL: tunnels end with 520, the desktop comes back, a new tunnel works', async () => {
    await desktop();
    const a = await viewer();
    const before = xvncInfo();
    process.kill(before.pid, 'SIGKILL');
    await a.client.until(() => a.client.closed !== null, 5000, 'tunnel close');
    assert.equal(a.client.closed, { code: 1011, reason: '520' });
    // Restarted on its own because a viewer was watching; the stale X lock is no obstacle.
    await until(() => !!ctx.manager.running(ctx.agent.id), 10_000, 'restart');
    const after = xvncInfo();
    assert.is.not(after.pid, before.pid);
    assert.is(after.display, before.display);
    const again = await viewer();
    await sameAsServer(again.client, ctx.manager.running(ctx.agent.id) as RfbDesktop);
    again.client.close();
  });

  xvnc('a stale /tmp/.X<n>-lock of a dead server is no obstacle to the display', async () => {
    await desktop();
    const { display } = xvncInfo();
    // Contained, the display lives in the desktop's own /tmp; uncontained, in the host's.
    const lock = sandbox().jail ? sandbox().hostPath(`/tmp/.X${display}-lock`) : `/tmp/.X${display}-lock`;
    const xSocket = sandbox().jail ? sandbox().hostPath(`/tmp/.X11-unix/X${display}`) : `/tmp/.X11-unix/X${display}`;
    await ctx.manager.stop(ctx.agent.id);
    // What SIGKILL leaves behind: a lock naming a dead pid, and the socket.
    const dead = spawn('true');
    await new Promise((r) => dead.once('exit', r));
    mkdirSync(join(lock, '..', '.X11-unix'), { recursive: true });
    writeFileSync(lock, `${String(dead.pid).padStart(10)}\n`);
    writeFileSync(xSocket, '');
    await desktop();
    assert.is(xvncInfo().display, display);
    const pid = Number(readFileSync(sandbox().jail ? sandbox().hostPath(`/tmp/.X${display}-lock`) : lock, 'latin1').trim());
    // Contained, the lock names Xvnc's pid in its own pid namespace, and the planted one is gone with its /tmp.
    if (sandbox().jail) assert.is.not(pid, dead.pid);
    else assert.is(pid, xvncInfo().pid);
  });

  xvnc('-AlwaysShared: a viewer that asks for exclusive access does not drop the gateway', async () => {
    const d = (await desktop()) as RfbDesktop;
    const sock = connect(rfbSocket());
    const got: Buffer[] = [];
    sock.on('data', (b) => got.push(b));
    const wait = async (n: number) => until(() => Buffer.concat(got).length >= n, 3000, `${n} bytes`);
    await wait(12);
    sock.write('RFB 003.008\n');
    await wait(12 + 2);
    sock.write(Buffer.from([1])); // security None
    await wait(12 + 2 + 4);
    sock.write(Buffer.from([0])); // ClientInit shared = 0: "disconnect everybody else"
    await wait(12 + 2 + 4 + 24);
    // Xvnc drops the others while it handles that ClientInit, before its ServerInit: a change reaching the
    // gateway afterwards proves its connection survived.
    const updated = new Promise((resolve) => d.once('update', resolve));
    await d.typeText(' ');
    await updated;
    assert.not.ok(d.closed, 'the gateway connection survived');
    await d.typeText('\b');
    sock.destroy();
  });

  xvnc('deleting an agent stops its desktop and removes its home directory', async () => {
    const doomed = await newAgent(ctx.user.id, 'Doomed');
    const d = await ctx.manager.acquire(doomed.id);
    const dir = join(ctx.dir, 'desktops', `agent-${doomed.id}`);
    assert.ok(existsSync(xvncPidFile(ctx.dir, doomed.id)));
    const res = await call(`/api/agents/${doomed.id}`, { method: 'DELETE', token: await adminToken() });
    assert.is(res.status, 204, JSON.stringify(res.body));
    assert.ok(d.closed, 'the desktop stopped');
    assert.is(ctx.manager.running(doomed.id), null);
    assert.not.ok(existsSync(dir), 'its home is gone');
    assert.ok(ctx.manager.running(ctx.agent.id) || existsSync(home()), 'other agents keep theirs');
  });
}

// ---

const providers = suite('desktop: providers');

providers('none: the status says why, and entering answers 503 with that reason', async () => {
  const running = await testServer();
  const user = await newUser('none');
  const agent = await newAgent(user.id);
  const none = testDesktops({ dataDir: tmpdir(), log: quiet, config: { provider: 'none' } });
  const original = running.parts.desktops;
  running.parts.desktops = none;
  try {
    const status = await call('/api/desktops/status', { token: user.token });
    assert.is(status.body.available, false);
    assert.is(status.body.provider, 'none');
    assert.match(status.body.reason, /DESKTOP_PROVIDER=none/);
    const enter = await call('/api/agents/enter', { token: user.token, body: { agent_id: agent.id } });
    assert.is(enter.status, 503);
    assert.match(enter.body.detail, /turned off/);
    const shot = await call(`/api/agents/${agent.id}/screenshot`, { token: user.token });
    assert.is(shot.status, 404);
    assert.is(shot.body.detail, 'No screenshot yet');
  } finally {
    running.parts.desktops = original;
    await none.stopAll();
  }
});

providers('xvnc without the binary falls back to none and names the package', async () => {
  const m = testDesktops({ dataDir: tmpdir(), log: quiet, config: { provider: 'xvnc' }, env: { PATH: '/nonexistent' } });
  assert.is(m.status().available, false);
  assert.match(m.status().reason!, /Xvnc is not installed.*tigervnc-standalone-server/);
  await m.stopAll();
});

providers('vnc: endpoints parse, and VNC authentication works with the right password only', async () => {
  const m = testDesktops({
    dataDir: tmpdir(), log: quiet, env: { DESKTOP_PROVIDER: 'vnc', DESKTOP_VNC_ENDPOINTS: '41=127.0.0.1:1,42=secret@unix:/tmp/x.sock' },
  });
  assert.equal(m.status(), { available: true, provider: 'vnc' });
  await m.stopAll();
  const bad = testDesktops({ dataDir: tmpdir(), log: quiet, env: { DESKTOP_PROVIDER: 'vnc', DESKTOP_VNC_ENDPOINTS: 'oops' } });
  assert.is(bad.status().provider, 'none');
  assert.match(bad.status().reason!, /bad entry "oops"/);
  await bad.stopAll();
  if (!HAVE_XVNC) return;

  // A password-protected Xvnc on a loopback TCP port, password file written without vncpasswd.
  const dir = mkdtempSync(join(tmpdir(), 'aw-vncauth-'));
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as any).port;
      s.close(() => resolve(p));
    });
  });
  writeFileSync(join(dir, 'passwd'), vncPasswordFile('s3cret!'), { mode: 0o600 });
  let display = 90;
  while (existsSync(`/tmp/.X${display}-lock`)) display++;
  const x = spawn('Xvnc', [
    `:${display}`, '-geometry', '320x200', '-depth', '24', '-rfbport', String(port), '-localhost', '-nolisten', 'tcp',
    '-SecurityTypes', 'VncAuth', '-PasswordFile', join(dir, 'passwd'),
  ], { stdio: 'ignore' });
  try {
    let rfb: RfbClient | null = null;
    await until(async () => {
      rfb = await RfbClient.connect({ host: '127.0.0.1', port }, { password: 's3cret!' }).catch((err) => {
        if (err instanceof RfbError && /authentication/.test(err.message)) throw err;
        return null;
      });
      return !!rfb;
    }, 5000, 'Xvnc with VncAuth');
    assert.is(rfb!.width, 320);
    rfb!.close();
    try {
      await RfbClient.connect({ host: '127.0.0.1', port }, { password: 'wrong' });
      assert.unreachable('a wrong password was accepted');
    } catch (err) {
      assert.instance(err, RfbError);
      assert.match((err as Error).message, /VNC authentication failed/);
    }
  } finally {
    x.kill('SIGTERM');
    await new Promise((r) => x.once('exit', r));
    removeDataDir(dir);
  }
});

xvnc.run();
providers.run();
