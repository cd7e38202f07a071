// Contained desktops, tried from inside as an agent would: through the terminal of a real Xvnc desktop it
// probes who it is, what it can read, which processes it sees and what it can reach on the network (the
// app, PostgreSQL, the host's addresses, cloud metadata; and a test "internet" host in a network namespace
// this test makes). Then a fork bomb and a memory hog in one desktop while the API and a second desktop
// keep answering, and the ways it fails closed. Needs root, Xvnc and bubblewrap (CI has all three).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinary, type LocalDesktops, type RfbDesktop } from '../../server/desktop/index.ts';
import { testDesktops } from './desktop-helpers.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';

const sandbox = suite('desktop sandbox: the agent as an attacker, from its own terminal');
const PATH = process.env.PATH ?? '';
const READY = process.getuid?.() === 0 && !!findBinary('Xvnc', PATH) && !!findBinary('bwrap', PATH) && !!findBinary('slirp4netns', PATH);
// Agent ids no test server uses (a desktop's uid and network namespace follow its agent id).
const [PROBE, BOMB, WITNESS] = [9201, 9202, 9203];
// A stand-in for the internet: a host in a network namespace of this test, in a documentation range. CI machines
// sit in such ranges too; one that holds the machine's own address would send the test host's traffic elsewhere.
const OWN_V4 = Object.values(networkInterfaces()).flat().flatMap((i) => (i?.family === 'IPv4' ? [i.address] : []));
const RANGE = ['203.0.113', '198.51.100', '192.0.2'].find((r) => !OWN_V4.some((a) => a.startsWith(`${r}.`)));
const NET = { ns: `awt-inet-${process.pid}`, veth: `awti${process.pid % 100000}`, host: `${RANGE}.1`, peer: `${RANGE}.2`, port: 8080 };
// An address of this host on an interface without a carrier (an unplugged port): still the host's own.
const UNPLUGGED = { link: `${NET.veth}u`, address: `${RANGE}.9`, gained: `${RANGE}.10` };
const logged: string[] = [];
const quiet = { info: () => {}, error: (m: string) => (logged.push(m), process.env.TEST_VERBOSE && console.error(m)) };

async function until(test: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ctx = {} as { dir: string; desktops: LocalDesktops; appPort: number; inet: ChildProcess | null };

/** Runs a script in the desktop's terminal as the agent would type it; resolves with what it printed. */
async function inTerminal(desktops: LocalDesktops, agentId: number, name: string, script: string, ms = 30_000): Promise<string> {
  const d = (await desktops.acquire(agentId)) as RfbDesktop;
  const home = join(ctx.dir, 'desktops', `agent-${agentId}`);
  await until(() => d.framebuffer().data[(100 * 1280 + 100) * 4] > 240, 15_000, 'the terminal');
  writeFileSync(join(home, `${name}.sh`), script, { mode: 0o644 });
  await d.typeText(`bash ~/${name}.sh > ~/${name}.out 2>&1; touch ~/${name}.done\n`);
  await until(() => existsSync(join(home, `${name}.done`)), ms, `${name} to finish`);
  return readFileSync(join(home, `${name}.out`), 'utf8');
}

async function startInternet(): Promise<void> {
  assert.ok(RANGE, `a documentation range none of this machine's addresses is in (${OWN_V4.join(', ')})`);
  const sh = (cmd: string) => spawnSync('sh', ['-c', cmd], { stdio: 'ignore' }).status;
  // A run that died left its host behind, and with it a route that would shadow this one's.
  for (const ns of spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout.match(/^awt-inet-\d+/gm) ?? []) {
    if (!existsSync(`/proc/${ns.slice('awt-inet-'.length)}`) || ns === NET.ns) sh(`ip netns pids ${ns} | xargs -r kill -9; ip netns delete ${ns}`);
  }
  assert.is(sh([
    `ip netns add ${NET.ns}`, `ip link add ${NET.veth} type veth peer name ${NET.veth}p`, `ip link set ${NET.veth}p netns ${NET.ns}`,
    `ip addr add ${NET.host}/24 dev ${NET.veth}`, `ip link set ${NET.veth} up`,
    `ip -n ${NET.ns} addr add ${NET.peer}/24 dev ${NET.veth}p`, `ip -n ${NET.ns} link set ${NET.veth}p up`, `ip -n ${NET.ns} link set lo up`,
    // Its peer stays down in the test's namespace (and goes with it).
    `ip link add ${UNPLUGGED.link} type veth peer name ${UNPLUGGED.link}p`, `ip link set ${UNPLUGGED.link}p netns ${NET.ns}`,
    `ip addr add ${UNPLUGGED.address}/32 dev ${UNPLUGGED.link}`, `ip link set ${UNPLUGGED.link} up`,
  ].join(' && ')), 0, 'the test internet host');
  const server = `require('http').createServer((q, s) => s.end('hello from the internet')).listen(${NET.port}, '${NET.peer}')`;
  ctx.inet = spawn('ip', ['netns', 'exec', NET.ns, process.execPath, '-e', server], { stdio: 'ignore' });
  await until(() => reachable(NET.peer, NET.port), 15_000, 'the test internet host to listen');
}

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1000 }, () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false)).once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

function stopInternet(): void {
  ctx.inet?.kill('SIGKILL');
  spawnSync('sh', ['-c', `ip netns delete ${NET.ns}; ip link delete ${NET.veth}`], { stdio: 'ignore' });
}

if (!READY) {
  const why = 'the sandbox tests need root, Xvnc, bubblewrap and slirp4netns (.ci/run installs them)';
  if (process.env.CI) sandbox('the sandbox can be tested', () => assert.unreachable(`${why}: missing on CI`));
  else sandbox.skip(why, () => {});
} else {
  sandbox.before(async () => {
    const running = await testServer();
    ctx.appPort = Number(new URL(running.url).port);
    // DATA_DIR under a folder only root may pass: contained desktops still start, never as root.
    const closed = mkdtempSync(join(tmpdir(), 'aw-closed-'));
    chmodSync(closed, 0o700);
    ctx.dir = join(closed, 'data');
    mkdirSync(join(ctx.dir, 'pg'), { recursive: true });
    writeFileSync(join(ctx.dir, 'pg', 'PG_VERSION'), 'the database', { mode: 0o644 });
    await startInternet();
    ctx.desktops = testDesktops({
      dataDir: ctx.dir, log: quiet, config: { provider: 'xvnc', apps: ['terminal'], displayBase: 700 },
      env: { DESKTOP_PIDS_MAX: '256', DESKTOP_MEMORY_MB: '384', DESKTOP_CPUS: '0.5' },
    });
    (globalThis as any).__teardown?.push(async () => {
      await ctx.desktops.stopAll();
      stopInternet();
      rmSync(closed, { recursive: true, force: true, maxRetries: 5 });
    });
  });

  sandbox.after(async () => {
    await ctx.desktops.stopAll();
  });

  sandbox('from its terminal: not root, no server files or processes, no loopback, host or private address; the internet works', async () => {
    assert.equal(ctx.desktops.status(), { available: true, provider: 'xvnc' });
    // A file planted for another agent, world-readable, in that agent's home.
    const other = join(ctx.dir, 'desktops', `agent-${WITNESS}`, 'Desktop');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'planted.txt'), 'another agent\'s file', { mode: 0o644 });
    const hostAddress = Object.values(networkInterfaces()).flat().find((i) => i && !i.internal && i.family === 'IPv4')?.address;
    const targets = [`127.0.0.1:${ctx.appPort}`, '127.0.0.1:5432', '10.0.2.2:5432', '169.254.169.254:80'];
    if (hostAddress) targets.push(`${hostAddress}:${ctx.appPort}`, `${hostAddress}:5432`);
    targets.push(`${UNPLUGGED.address}:${ctx.appPort}`, `${UNPLUGGED.gained}:${ctx.appPort}`);
    // An address the host gains while the desktop runs: its table refuses that one too, once it is told.
    await ctx.desktops.acquire(PROBE);
    const netns = ctx.desktops.xvnc!.sandboxOf(PROBE)!.jail!.netns!;
    const refused = () => spawnSync('nsenter', [`--net=${netns}`, 'nft', 'list', 'set', 'inet', 'agent_workspace', 'host4'], { encoding: 'utf8' }).stdout;
    assert.not.match(refused(), UNPLUGGED.gained);
    assert.is(spawnSync('ip', ['addr', 'add', `${UNPLUGGED.gained}/32`, 'dev', UNPLUGGED.link]).status, 0);
    await until(() => refused().includes(UNPLUGGED.gained), 10_000, 'the gained address in the desktop\'s table');
    const out = await inTerminal(ctx.desktops, PROBE, 'probe', `
      echo "uid=$(id -u)"
      cat ${join(ctx.dir, 'pg', 'PG_VERSION')} >/dev/null 2>&1 && echo "read=database" || echo "read=none"
      cat ${join(other, 'planted.txt')} >/dev/null 2>&1 && echo "read=planted" || echo "read=none"
      [ -e /proc/${process.pid} ] && echo "server=visible" || echo "server=hidden"
      echo "processes=$(ls /proc | grep -c '^[0-9]')"
      touch /usr/bin/planted 2>/dev/null && echo "system=writable" || echo "system=read-only"
      for t in ${targets.join(' ')}; do
        timeout 3 bash -c "exec 3<>/dev/tcp/\${t%:*}/\${t#*:}" 2>/dev/null && echo "open $t" || echo "closed $t"
      done
      exec 3<>/dev/tcp/${NET.peer}/${NET.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && echo "internet=$(tail -n 1 <&3)"
    `);
    const uid = Number(/uid=(\d+)/.exec(out)?.[1]);
    assert.ok(uid > 0, out);
    assert.not.match(out, /read=database|read=planted/);
    assert.match(out, /server=hidden/);
    assert.ok(Number(/processes=(\d+)/.exec(out)?.[1]) < 20, out);
    assert.match(out, /system=read-only/);
    for (const t of targets) assert.match(out, `closed ${t}`);
    assert.match(out, /internet=hello from the internet/, out);

    // With the watch on the host's addresses gone, changes would go unseen: the desktop goes offline.
    const slirp = () => spawnSync('pgrep', ['-f', `^slirp4netns .*${netns} `]).status === 0;
    assert.ok(slirp(), 'its way out runs');
    const monitor = spawnSync('pgrep', ['-P', String(process.pid), '-f', '^ip monitor address'], { encoding: 'utf8' }).stdout.trim();
    assert.match(monitor, /^\d+$/, 'one monitor for all desktops');
    process.kill(Number(monitor), 'SIGKILL');
    await until(() => !slirp(), 10_000, 'the desktop to go offline');
    const offline = `desktop network ${netns.split('/').pop()}: ip monitor address exited (SIGKILL); it is offline now`;
    assert.ok(logged.includes(offline), logged.join('\n'));
  });

  sandbox('a fork bomb and a memory hog in one desktop: the API answers within 1 s, another desktop keeps streaming', async () => {
    const witness = (await ctx.desktops.acquire(WITNESS)) as RfbDesktop;
    await until(() => witness.framebuffer().data[(100 * 1280 + 100) * 4] > 240, 15_000, 'the witness terminal');
    const bomb = (await ctx.desktops.acquire(BOMB)) as RfbDesktop;
    await until(() => bomb.framebuffer().data[(100 * 1280 + 100) * 4] > 240, 15_000, 'the bomb terminal');
    const home = join(ctx.dir, 'desktops', `agent-${BOMB}`);
    // The hog first (killed by its group's memory limit), then a bomb that ends itself after 8 s.
    writeFileSync(join(home, 'hog.sh'), 'head -c 2000000000 /dev/zero | tail > /dev/null; echo "hog=$?" > ~/hog.txt\n', { mode: 0o644 });
    writeFileSync(join(home, 'bomb.sh'), 'end=$(($(date +%s) + 8)); b() { [ "$(date +%s)" -lt $end ] && { b | b & }; }; b; sleep 9; touch ~/bomb.done\n');
    await bomb.typeText('bash ~/hog.sh; bash ~/bomb.sh &\n');
    // Until its line is whole: the shell creates the file before it writes the line.
    const hogLine = () => (existsSync(join(home, 'hog.txt')) ? readFileSync(join(home, 'hog.txt'), 'utf8') : '');
    await until(() => hogLine().endsWith('\n'), 120_000, 'the hog to be stopped'); // half a core, on a loaded machine
    assert.is(hogLine().trim(), 'hog=137', 'tail killed (SIGKILL) by the memory limit of its group');

    const slowest = { ms: 0 };
    let frames = 0;
    const onUpdate = () => frames++;
    witness.on('update', onUpdate);
    const user = await newUser('sandbox');
    const agent = await newAgent(user.id, 'Witness');
    const deadline = Date.now() + 8000;
    let typed = 0;
    while (Date.now() < deadline) {
      const started = performance.now();
      const res = await call(`/api/agents/${agent.id}`, { token: user.token });
      assert.is(res.status, 200);
      slowest.ms = Math.max(slowest.ms, performance.now() - started);
      await witness.typeText(String(typed++ % 10));
      await new Promise((r) => setTimeout(r, 200));
    }
    witness.off('update', onUpdate);
    assert.ok(slowest.ms < 1000, `the slowest API answer took ${slowest.ms.toFixed(0)} ms`);
    assert.ok(frames >= typed / 2, `${frames} updates for ${typed} keys on the witness desktop`);
    await until(() => existsSync(join(home, 'bomb.done')), 30_000, 'the bomb to end');
    await ctx.desktops.stop(BOMB);
  });

  sandbox('fails closed: without bubblewrap no desktop starts, and the reason says how to fix it', async () => {
    // A PATH with Xvnc and everything else but bwrap.
    const bin = mkdtempSync(join(tmpdir(), 'aw-nobwrap-'));
    for (const tool of ['Xvnc', 'nsenter', 'unshare', 'setpriv', 'ip', 'nft', 'slirp4netns', 'sh']) {
      symlinkSync(findBinary(tool, PATH)!, join(bin, tool));
    }
    const desktops = testDesktops({ dataDir: join(ctx.dir, 'nobwrap'), log: quiet, config: { provider: 'xvnc' }, env: { PATH: bin } });
    try {
      const status = desktops.status();
      assert.is(status.available, false);
      assert.match(status.reason!, /cannot be contained: bwrap not installed \(Debian: apt-get install bubblewrap; or set DESKTOP_SANDBOX=off/);
      try {
        await desktops.acquire(PROBE);
        assert.unreachable('a desktop started uncontained');
      } catch (err) {
        assert.is((err as Error).name, 'DesktopUnavailable');
      }
    } finally {
      await desktops.stopAll();
      rmSync(bin, { recursive: true, force: true });
    }
  });

  sandbox('DESKTOP_SANDBOX=off under a folder agents cannot pass: refused, never run as root', async () => {
    const desktops = testDesktops({ dataDir: join(ctx.dir, 'uncontained'), log: quiet, config: { provider: 'xvnc', sandbox: 'off' } });
    try {
      assert.is(desktops.status().available, false);
      assert.match(desktops.status().reason!, /does not let the agents' users through/);
    } finally {
      await desktops.stopAll();
    }
  });
}

sandbox.run();
