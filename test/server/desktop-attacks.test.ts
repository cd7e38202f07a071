// The attacks of issue 40, replayed from inside contained desktops: a link planted over the desktop's RFB
// socket, aimed at another tenant's Xvnc; a screen resized from inside to take the server's memory; a `dd`
// into /tmp; a desktop that disconnects the server from its own Xvnc. And a fake RFB server announcing a huge
// screen, as the server would meet it had it connected to one. Needs root, Xvnc, bubblewrap, xrandr.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, lstatSync, readFileSync, readlinkSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findBinary } from '../../server/desktop/host.ts';
import { processesOf } from '../../server/desktop/contain/processes.ts';
import { RfbClient } from '../../server/desktop/rfb/client.ts';
import { type LocalDesktops } from '../../server/desktop/place/local-desktops.ts';
import { type RfbDesktop } from '../../server/desktop/rfb/desktop.ts';
import { testDesktops } from './desktop-helpers.ts';

const attacks = suite('desktop attacks from inside (issue 40)');
const PATH = process.env.PATH ?? '';
const READY = process.getuid?.() === 0 && ['Xvnc', 'bwrap', 'xrandr', 'vncconfig'].every((b) => !!findBinary(b, PATH));
// Agent ids no other test uses: the attacker and its victim, another tenant's agent.
const [ATTACKER, VICTIM] = [9301, 9302];
const TMP_MB = 48;
const HOME_MB = 64;
const logged: string[] = [];
const quiet = { info: () => {}, error: (m: string) => logged.push(m) };
const ctx = {} as { dir: string; desktops: LocalDesktops };

async function until(test: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What the desktop's 'closed' event carries, or a failure when it does not come within `ms`. */
function closedWithin(desktop: RfbDesktop, ms: number): Promise<Error | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the desktop was not closed within ${ms} ms`)), ms);
    desktop.once('closed', (error?: Error) => (clearTimeout(timer), resolve(error)));
  });
}

const home = (agentId: number) => join(ctx.dir, 'desktops', `agent-${agentId}`);
const uidOf = (agentId: number) => ctx.desktops.xvnc!.sandboxOf(agentId)!.account!.uid;

/** Runs a script in the desktop's terminal as the agent would type it; resolves with what it printed. */
async function inTerminal(agentId: number, name: string, script: string, ms = 30_000): Promise<string> {
  const d = (await ctx.desktops.acquire(agentId)) as RfbDesktop;
  await until(() => d.framebuffer().data[(100 * d.width + 100) * 4] > 240, 15_000, 'the terminal');
  writeFileSync(join(home(agentId), `${name}.sh`), script, { mode: 0o644 });
  await d.typeText(`bash ~/${name}.sh > ~/${name}.out 2>&1; touch ~/${name}.done\n`);
  await until(() => existsSync(join(home(agentId), `${name}.done`)), ms, `${name} to finish`);
  return readFileSync(join(home(agentId), `${name}.out`), 'utf8');
}

/** A `dd` of 400 MB into `path` from the attacker's terminal: it must run out of space; what it said and the size reached. */
async function fill(name: string, path: string, after = ''): Promise<{ out: string; size: number }> {
  const out = await inTerminal(ATTACKER, name, [`dd if=/dev/zero of=${path} bs=1M count=400`, `echo "size=$(stat -c %s ${path})"`, after].join('\n'));
  assert.match(out, /No space left on device/, out);
  return { out, size: Number(/size=(\d+)/.exec(out)?.[1]) };
}

/** The desktop name a fresh RFB connection to `path` is greeted with (Xvnc's -desktop: agent-<id>). */
async function desktopNameAt(path: string): Promise<string> {
  const rfb = await RfbClient.connect({ path }, { timeout: 5000 });
  rfb.close();
  return rfb.name;
}

if (!READY) {
  const why = 'the attack tests need root, Xvnc, bubblewrap, xrandr and vncconfig (.ci/run installs them)';
  if (process.env.CI) attacks('the attacks can be replayed', () => assert.unreachable(`${why}: missing on CI`));
  else attacks.skip(why, () => {});
} else {
  attacks.before(() => {
    ctx.dir = join(tmpdir(), `aw-attacks-${process.pid}`);
    ctx.desktops = testDesktops({
      dataDir: ctx.dir, log: quiet, config: { provider: 'xvnc', apps: ['terminal'], displayBase: 740 },
      env: {
        AGENT_TMP_MB: String(TMP_MB), AGENT_HOME_MB: String(HOME_MB), DESKTOP_MAX_PIXELS: String(2048 * 2048),
        DESKTOP_PIDS_MAX: '256', DESKTOP_MEMORY_MB: '512',
      },
    });
    (globalThis as any).__teardown?.push(async () => {
      await ctx.desktops.stopAll();
      rmSync(ctx.dir, { recursive: true, force: true, maxRetries: 5 });
    });
  });

  attacks.after(async () => {
    await ctx.desktops.stopAll();
    // The server's stop unmounts the home images it mounted (through the spawner, the event loop running on).
    assert.not.ok(readFileSync('/proc/self/mountinfo', 'utf8').includes(` ${home(ATTACKER)} `), 'the home image is still mounted');
  });

  attacks('a link planted over the RFB socket, at the next start, never takes the server to another tenant\'s desktop', async () => {
    const victim = (await ctx.desktops.acquire(VICTIM)) as RfbDesktop;
    // The victim's socket where root on the host reaches it (the agent learns host paths from its mount table).
    const victimSocket = (victim.target as { path: string }).path;
    assert.is(await desktopNameAt(victimSocket), `agent-${VICTIM}`);
    await ctx.desktops.acquire(ATTACKER);
    const uid = uidOf(ATTACKER);
    await ctx.desktops.stop(ATTACKER);
    // The agent's ~/.bashrc, run by its terminal at the next start: it keeps putting a link in its socket's place.
    writeFileSync(join(home(ATTACKER), '.bashrc'), [
      `for i in $(seq 200); do ln -sfn ${victimSocket} /tmp/.planted && mv -T /tmp/.planted /tmp/.rfb.sock && break; done`,
      'touch ~/planted',
      '',
    ].join('\n'), { mode: 0o644 });
    chownSync(join(home(ATTACKER), '.bashrc'), uid, uid);
    const desktop = (await ctx.desktops.acquire(ATTACKER)) as RfbDesktop;
    await until(() => existsSync(join(home(ATTACKER), 'planted')), 15_000, 'the link to be planted');
    const sandbox = ctx.desktops.xvnc!.sandboxOf(ATTACKER)!;
    assert.is(readlinkSync(sandbox.hostPath('/tmp/.rfb.sock')), victimSocket, 'the agent did plant its link');

    assert.is(desktop.rfb.name, `agent-${ATTACKER}`, 'the server\'s own connection is to the attacker\'s desktop');
    // Where every later connection opens (the fleet's relay, for one): the agent's own Xvnc, not the victim's.
    const target = (desktop.target as { path: string }).path;
    assert.is(await desktopNameAt(target), `agent-${ATTACKER}`);
    const st = lstatSync(target);
    assert.ok(st.isSocket() && st.uid === uid, 'a socket of the desktop\'s own uid');
    const dir = lstatSync(dirname(target));
    assert.ok(dir.uid === 0 && (dir.mode & 0o077) === 0, `kept where only root reaches it (${(dir.mode & 0o777).toString(8)})`);
    rmSync(join(home(ATTACKER), '.bashrc'));
    await ctx.desktops.stop(ATTACKER);
    await ctx.desktops.stop(VICTIM);
  });

  attacks('a screen resized from inside past DESKTOP_MAX_PIXELS ends the desktop with a log line, not the server\'s memory', async () => {
    const desktop = (await ctx.desktops.acquire(ATTACKER)) as RfbDesktop;
    const uid = uidOf(ATTACKER);
    const closed = closedWithin(desktop, 20_000);
    const before = process.memoryUsage().rss;
    const d = desktop;
    await until(() => d.framebuffer().data[(100 * d.width + 100) * 4] > 240, 15_000, 'the terminal');
    await d.typeText('xrandr --fb 4096x4096\n');
    const error = await closed;
    assert.match(String(error?.message), /4096x4096 screen, over the limit of 4194304 pixels/, logged.join('\n'));
    assert.ok(logged.some((m) => /desktop 9301 crashed: .*4096x4096/.test(m)), logged.join('\n'));
    assert.ok(process.memoryUsage().rss - before < 48 * 1024 * 1024, 'no 64 MB framebuffer');
    // Ended whole: nothing of the agent's uid runs on.
    await until(async () => (await processesOf(uid)).length === 0, 15_000, 'every process of the desktop to end');
  });

  attacks('a desktop that disconnects the server from its own Xvnc is ended whole, network and all', async () => {
    const desktop = (await ctx.desktops.acquire(ATTACKER)) as RfbDesktop;
    const sandbox = ctx.desktops.xvnc!.sandboxOf(ATTACKER)!;
    const uid = sandbox.account!.uid;
    const netns = sandbox.jail!.netns;
    const closed = closedWithin(desktop, 20_000);
    await until(() => desktop.framebuffer().data[(100 * desktop.width + 100) * 4] > 240, 15_000, 'the terminal');
    // vncconfig drops every viewer, the server's connection among them; Xvnc and its apps would run on untracked.
    await desktop.typeText('vncconfig -display :1 -disconnect\n');
    await closed;
    await until(async () => (await processesOf(uid)).length === 0, 15_000, 'every process of the desktop to end');
    if (netns) {
      await until(() => spawnSync('pgrep', ['-f', `^slirp4netns .*${netns} `]).status !== 0, 10_000, 'its slirp4netns to end');
      await until(() => !existsSync(netns), 10_000, 'its network namespace to go');
    }
    assert.is(ctx.desktops.running(ATTACKER), null);
  });

  attacks('/tmp is a tmpfs of AGENT_TMP_MB: a dd into it fills it, not the host\'s disk', async () => {
    const hostTmpFree = () => { const s = statfsSync(tmpdir()); return s.bavail * s.bsize; };
    const before = hostTmpFree();
    const { out, size } = await fill('fill-tmp', '/tmp/fill', 'rm -f /tmp/fill');
    assert.ok(size > 0 && size <= TMP_MB * 1024 * 1024, out);
    assert.ok(before - hostTmpFree() < 32 * 1024 * 1024, 'the host\'s disk kept its space');
  });

  attacks('the home is an image of AGENT_HOME_MB: a dd into it fills the image, not the data directory\'s disk', async () => {
    const dataFree = () => { const s = statfsSync(ctx.dir); return s.bavail * s.bsize; };
    const before = dataFree();
    const told: [number, string, number][] = [];
    const onFull = (...args: [number, string, number]) => told.push(args);
    ctx.desktops.on('storage-full', onFull);
    const { out, size } = await fill('fill-home', '~/fill');
    assert.ok(size > 0 && size <= HOME_MB * 1024 * 1024, out);
    assert.ok(before - dataFree() < (HOME_MB + 16) * 1024 * 1024, 'the data directory\'s disk lost no more than the image holds');
    // A file dropped on the full desktop: the server's own write fails as a full disk (507), nothing left behind.
    const source = join(ctx.dir, 'drop.bin');
    writeFileSync(source, Buffer.alloc(8 * 1024 * 1024));
    const dropped = await ctx.desktops.putFile(ATTACKER, source, 'drop.bin').then(() => null, (err: Error) => err);
    assert.is((dropped as { status?: number } | null)?.status, 507, String(dropped));
    assert.not.ok(existsSync(join(home(ATTACKER), 'Desktop', 'drop.bin')));
    // Its owner is told once (start.ts writes it in the agent's chat), with the home's size.
    await until(() => told.length > 0, 15_000, 'the desktop to tell that its home is full');
    assert.is(told[0][0], ATTACKER);
    assert.is(told[0][1], 'home');
    assert.ok(told[0][2] > HOME_MB / 2 && told[0][2] <= HOME_MB, String(told[0][2]));
    ctx.desktops.off('storage-full', onFull);
    rmSync(join(home(ATTACKER), 'fill'));
    // Its own file system, mounted on the home, and the home survives a restart of its desktop.
    assert.ok(readFileSync('/proc/self/mountinfo', 'utf8').includes(` ${home(ATTACKER)} `));
    writeFileSync(join(home(ATTACKER), 'kept.txt'), 'kept');
    await ctx.desktops.stop(ATTACKER);
    await ctx.desktops.acquire(ATTACKER);
    assert.is(readFileSync(join(home(ATTACKER), 'kept.txt'), 'utf8'), 'kept');
  });

  attacks('a fake RFB server announcing a 16384x16384 screen, or resizing to it, is refused before anything is allocated', async () => {
    const servers: Server[] = [];
    const fake = (desktopSizeAfterInit: boolean) => new Promise<number>((resolve) => {
      const server = createServer((sock) => {
        sock.on('error', () => {});
        sock.write('RFB 003.008\n');
        sock.once('data', () => {
          sock.write(Buffer.from([1, 1])); // security None
          sock.once('data', () => {
            sock.write(Buffer.from([0, 0, 0, 0])); // SecurityResult ok
            sock.once('data', () => {
              const init = Buffer.alloc(24);
              const side = desktopSizeAfterInit ? 64 : 16384;
              init.writeUInt16BE(side, 0);
              init.writeUInt16BE(side, 2);
              init.writeUInt32BE(0, 20);
              sock.write(init);
              if (!desktopSizeAfterInit) return;
              // FramebufferUpdate: one DesktopSize pseudo-rectangle (encoding -223) of 16384x16384.
              const update = Buffer.alloc(16);
              update.writeUInt16BE(1, 2);
              update.writeUInt16BE(16384, 8);
              update.writeUInt16BE(16384, 10);
              update.writeInt32BE(-223, 12);
              sock.write(update);
            });
          });
        });
      });
      servers.push(server);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
    try {
      const port = await fake(false);
      const refused = await RfbClient.connect({ host: '127.0.0.1', port }, { timeout: 3000, maxPixels: 4096 * 4096 }).then(
        () => null, (err: Error) => err,
      );
      assert.match(String(refused?.message), /16384x16384 screen, over the limit of 16777216 pixels/);
      const resized = await RfbClient.connect({ host: '127.0.0.1', port: await fake(true) }, { timeout: 3000 });
      const error = await new Promise<Error | undefined>((resolve) => resized.once('close', resolve));
      assert.match(String(error?.message), /16384x16384 screen, over the limit/);
      assert.is(resized.fb.length, 64 * 64 * 4, 'the framebuffer stayed the 64x64 one');
    } finally {
      for (const s of servers) s.close();
    }
  });
}

attacks.run();
