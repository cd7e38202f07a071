// Contained desktops, tried from inside as an agent would: through the terminal of a real Xvnc desktop it
// probes who it is, what it can read, which processes it sees and what it can reach on the network (the
// app, PostgreSQL, the host's addresses, cloud metadata; and a test "internet" host, with a name server, in a
// network namespace this test makes), what of the host it can learn (PATH, paths, users, counters) and which
// system calls it may make. Then a fork bomb and a memory hog in one desktop while the API and a second
// desktop keep answering, a stop and a start of one desktop at once, and the ways it fails closed. The server's
// umask (077) is the test's too. Needs root, Xvnc and bubblewrap (CI has all three).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { Resolver } from 'node:dns/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findBinary } from '../../server/desktop/host.ts';
import { type LocalDesktops } from '../../server/desktop/place/local-desktops.ts';
import { type RfbDesktop } from '../../server/desktop/rfb/desktop.ts';
import { spawner } from '../../server/system/spawner/index.ts';
import { testDesktops } from './desktop-helpers.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';

const sandbox = suite('desktop sandbox: the agent as an attacker, from its own terminal');
const PATH = process.env.PATH ?? '';
const READY = process.getuid?.() === 0 && !!findBinary('Xvnc', PATH) && !!findBinary('bwrap', PATH) && !!findBinary('slirp4netns', PATH);
// Agent ids no test server uses (a desktop's uid and network namespace follow its agent id).
const [PROBE, BOMB, WITNESS, RACE] = [9201, 9202, 9203, 9204];
// A stand-in for the internet: a host in a network namespace of this test, in a documentation range. CI machines
// sit in such ranges too; one that holds the machine's own address would send the test host's traffic elsewhere.
const OWN_V4 = Object.values(networkInterfaces()).flat().flatMap((i) => (i?.family === 'IPv4' ? [i.address] : []));
const RANGE = ['203.0.113', '198.51.100', '192.0.2'].find((r) => !OWN_V4.some((a) => a.startsWith(`${r}.`)));
const NET = { ns: `awt-inet-${process.pid}`, veth: `awti${process.pid % 100000}`, host: `${RANGE}.1`, peer: `${RANGE}.2`, port: 8080 };
// The test host's name, which its name server answers; the host's own resolver (slirp4netns forwards to it) is
// this name server for the probe's way out only (/etc/resolv.conf in slirp4netns's own mount namespace).
const NAME = 'internet.example';
const UPSTREAM = `/run/awt-resolv-${process.pid}.conf`;
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

const ctx = {} as { dir: string; desktops: LocalDesktops; appPort: number; inet: ChildProcess | null; dns: ChildProcess | null; umask: number };

/** Runs a script in the desktop's terminal as the agent would type it; resolves with what it printed. */
async function inTerminal(desktops: LocalDesktops, agentId: number, name: string, script: string, ms = 30_000): Promise<string> {
  const d = (await desktops.acquire(agentId)) as RfbDesktop;
  const home = join(ctx.dir, 'desktops', `agent-${agentId}`);
  await until(() => d.framebuffer().data[(100 * 1280 + 100) * 4] > 240, 15_000, 'the terminal');
  writeForAgent(join(home, `${name}.sh`), script);
  await d.typeText(`bash ~/${name}.sh > ~/${name}.out 2>&1; touch ~/${name}.done\n`);
  await until(() => existsSync(join(home, `${name}.done`)), ms, `${name} to finish`);
  return readFileSync(join(home, `${name}.out`), 'utf8');
}

/** A file the agent may read, written under the server's umask. */
function writeForAgent(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o644);
}

/** A name server answering A for NAME with the test host's address (NXDOMAIN for other names). */
const NAME_SERVER = `const d = require('dgram').createSocket('udp4');
d.on('message', (q, r) => {
  let i = 12; const labels = [];
  while (q[i]) { labels.push(q.toString('latin1', i + 1, i + 1 + q[i])); i += q[i] + 1; }
  const known = labels.join('.').toLowerCase() === '${NAME}', a = known && q.readUInt16BE(i + 1) === 1;
  const h = Buffer.alloc(12); q.copy(h, 0, 0, 2);
  h.writeUInt16BE(0x8180 | (known ? 0 : 3), 2); h.writeUInt16BE(1, 4); h.writeUInt16BE(a ? 1 : 0, 6);
  const answer = a ? Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ${NET.peer.split('.').join(', ')}]) : Buffer.alloc(0);
  d.send(Buffer.concat([h, q.subarray(12, i + 5), answer]), r.port, r.address);
}).bind(53, '${NET.peer}');`;

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
  ctx.dns = spawn('ip', ['netns', 'exec', NET.ns, process.execPath, '-e', NAME_SERVER], { stdio: 'ignore' });
  await until(() => reachable(NET.peer, NET.port), 15_000, 'the test internet host to listen');
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([NET.peer]);
  await until(() => resolver.resolve4(NAME).then((a) => a[0] === NET.peer, () => false), 15_000, 'the test name server');
  writeFileSync(UPSTREAM, `nameserver ${NET.peer}\n`);
}

/**
 * Makes the test's name server the upstream of the desktop's slirp4netns, in that process's own mount namespace
 * (its sandbox), so the host's resolver stays as it is. Asserts first that slirp4netns runs sandboxed and filtered.
 */
function pointSlirpAtTestDns(netns: string): void {
  const pid = spawnSync('pgrep', ['-f', `^slirp4netns .*${netns} `], { encoding: 'utf8' }).stdout.trim();
  assert.match(pid, /^\d+$/, 'one slirp4netns for the desktop');
  assert.is.not(readlinkSync(`/proc/${pid}/ns/mnt`), readlinkSync('/proc/self/ns/mnt'), 'slirp4netns in a mount namespace of its own');
  assert.match(readFileSync(`/proc/${pid}/status`, 'utf8'), /^Seccomp:\s+2$/m, 'slirp4netns under a system call filter');
  const mounted = spawnSync('mount', ['-N', pid, '--bind', UPSTREAM, '/etc/resolv.conf'], { encoding: 'utf8' });
  assert.is(mounted.status, 0, mounted.stderr);
}

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1000 }, () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false)).once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

function stopInternet(): void {
  ctx.inet?.kill('SIGKILL');
  ctx.dns?.kill('SIGKILL');
  rmSync(UPSTREAM, { force: true });
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
    ctx.umask = process.umask(0o077); // the server's (server/main.ts)
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
    process.umask(ctx.umask);
  });

  sandbox('from its terminal: not root, no server files or processes, no loopback, host or private address; the internet works, by name too', async () => {
    assert.equal(ctx.desktops.status(), { available: true, provider: 'xvnc' });
    // A file planted for another agent, world-readable, in that agent's home.
    const other = join(ctx.dir, 'desktops', `agent-${WITNESS}`, 'Desktop');
    mkdirSync(other, { recursive: true });
    for (const dir of [dirname(other), other]) chmodSync(dir, 0o755);
    writeForAgent(join(other, 'planted.txt'), 'another agent\'s file');
    const hostAddress = Object.values(networkInterfaces()).flat().find((i) => i && !i.internal && i.family === 'IPv4')?.address;
    const targets = [`127.0.0.1:${ctx.appPort}`, '127.0.0.1:5432', '10.0.2.2:5432', '169.254.169.254:80'];
    if (hostAddress) targets.push(`${hostAddress}:${ctx.appPort}`, `${hostAddress}:5432`);
    targets.push(`${UNPLUGGED.address}:${ctx.appPort}`, `${UNPLUGGED.gained}:${ctx.appPort}`);
    // An address the host gains while the desktop runs: its table refuses that one too, once it is told.
    await ctx.desktops.acquire(PROBE);
    const netns = ctx.desktops.xvnc!.sandboxOf(PROBE)!.jail!.netns!;
    pointSlirpAtTestDns(netns);
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
      echo "resolv.conf=$(stat -c %a /etc/resolv.conf)"
      echo "name=$(getent hosts ${NAME})"
      exec 4<>/dev/tcp/${NAME}/${NET.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&4 && echo "by-name=$(tail -n 1 <&4)"
    `);
    const uid = Number(/uid=(\d+)/.exec(out)?.[1]);
    assert.ok(uid > 0, out);
    assert.not.match(out, /read=database|read=planted/);
    assert.match(out, /server=hidden/);
    assert.ok(Number(/processes=(\d+)/.exec(out)?.[1]) < 20, out);
    assert.match(out, /system=read-only/);
    for (const t of targets) assert.match(out, `closed ${t}`);
    assert.match(out, /internet=hello from the internet/, out);
    // Names resolve through the desktop's resolver: its resolv.conf (readable under umask 077), slirp's forwarder.
    assert.match(out, /resolv\.conf=644/, out);
    assert.match(out, new RegExp(`name=${NET.peer.replaceAll('.', '\\.')}\\s+${NAME}`), out);
    assert.match(out, /by-name=hello from the internet/, out);

    // With the watch on the host's addresses gone, changes would go unseen: the desktop goes offline.
    const slirp = () => spawnSync('pgrep', ['-f', `^slirp4netns .*${netns} `]).status === 0;
    assert.ok(slirp(), 'its way out runs');
    // Started, as every child of the server, by its spawner (system/spawner).
    const monitor = spawnSync('pgrep', ['-P', String(spawner().pid), '-f', '^ip monitor address'], { encoding: 'utf8' }).stdout.trim();
    assert.match(monitor, /^\d+$/, 'one monitor for all desktops');
    process.kill(Number(monitor), 'SIGKILL');
    await until(() => !slirp(), 10_000, 'the desktop to go offline');
    const offline = `desktop network ${netns.split('/').pop()}: ip monitor address exited (SIGKILL); it is offline now`;
    assert.ok(logged.includes(offline), logged.join('\n'));
  });

  sandbox('from its terminal: a system call filter that leaves user namespaces and Chromium working; none of the host\'s traces', async () => {
    const keyctl = process.arch === 'arm64' ? 219 : 250; // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0)
    const out = await inTerminal(ctx.desktops, PROBE, 'hardening', `
      echo "seccomp=$(awk '/^Seccomp:/ { print $2 }' /proc/self/status)"
      perl -e 'print "keyctl=", (syscall(${keyctl}, 0, -4, 0) == -1 ? $!+0 : "allowed"), "\\n"'
      unshare -Ur true && echo "userns=allowed" || echo "userns=denied"
      unshare -Urm --propagation unchanged mount -t tmpfs none /tmp 2>/dev/null && echo "mount=allowed" || echo "mount=denied"
      echo "path=$PATH"
      echo "cmdline=$(tr '\\0' ' ' < /proc/1/cmdline)"
      echo "mountinfo=$(tr '\\n' ' ' < /proc/self/mountinfo)"
      echo "user=$(id -un) $(wc -l < /etc/passwd) $(cat /etc/hostname) $(cat /etc/machine-id)"
      grep -E '^(processes|btime) ' /proc/stat
      echo "loadavg=$(cat /proc/loadavg)"
      profile=$(mktemp -d)
      timeout 120 chromium --headless --disable-gpu --user-data-dir="$profile" --dump-dom 'data:text/html,<p>chromium%20renders</p>' 2>/dev/null \\
        | grep -o 'chromium renders' | sed 's/^/browser=/'
    `, 150_000);
    assert.match(out, /^seccomp=2$/m, out);
    assert.match(out, /^keyctl=1$/m, out); // EPERM
    assert.match(out, /^userns=allowed$/m, out); // what Chromium's own sandbox is made of
    assert.match(out, /^mount=denied$/m, out);
    assert.match(out, /^browser=chromium renders$/m, out); // with its own sandbox: no --no-sandbox given
    const path = /^path=(.*)$/m.exec(out)?.[1] ?? '';
    assert.is.not(path, PATH);
    assert.ok(path.split(':').every((dir) => /^\/(usr\/(local\/)?)?s?bin$/.test(dir)), path);
    const seen = `${/^cmdline=.*$/m.exec(out)?.[0]}\n${/^mountinfo=.*$/m.exec(out)?.[0]}`;
    for (const hostPath of [ctx.dir, join(tmpdir(), 'aw-desktop-'), '/mnt/']) assert.not.ok(seen.includes(hostPath), `${hostPath} in:\n${seen}`);
    assert.match(out, new RegExp(`^user=agent-${PROBE} 3 agent-${PROBE} [0-9a-f]{32}$`, 'm'), out);
    assert.not.ok(existsSync('/etc/machine-id') && out.includes(readFileSync('/etc/machine-id', 'utf8').trim()), 'the host\'s machine id');
    assert.match(out, /^processes 0$/m, out);
    assert.match(out, /^btime \d+$/m, out);
    assert.match(out, /^loadavg=0\.00 0\.00 0\.00 1\/1 1$/m, out);
  });

  sandbox('a fork bomb and a memory hog in one desktop: the API answers within 1 s, another desktop keeps streaming', async () => {
    const witness = (await ctx.desktops.acquire(WITNESS)) as RfbDesktop;
    await until(() => witness.framebuffer().data[(100 * 1280 + 100) * 4] > 240, 15_000, 'the witness terminal');
    const bomb = (await ctx.desktops.acquire(BOMB)) as RfbDesktop;
    await until(() => bomb.framebuffer().data[(100 * 1280 + 100) * 4] > 240, 15_000, 'the bomb terminal');
    const home = join(ctx.dir, 'desktops', `agent-${BOMB}`);
    // The hog first (killed by its group's memory limit), then a bomb that ends itself after 8 s.
    writeForAgent(join(home, 'hog.sh'), 'head -c 2000000000 /dev/zero | tail > /dev/null; echo "hog=$?" > ~/hog.txt\n');
    writeForAgent(join(home, 'bomb.sh'), 'end=$(($(date +%s) + 8)); b() { [ "$(date +%s)" -lt $end ] && { b | b & }; }; b; sleep 9; touch ~/bomb.done\n');
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

  sandbox('a stop and a start of one desktop at once: the old one\'s cleanup leaves the new one running', async () => {
    const first = (await ctx.desktops.acquire(RACE)) as RfbDesktop;
    const old = ctx.desktops.xvnc!.sandboxOf(RACE)!;
    const uid = old.account!.uid;
    const ofUid = () => spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout.split('\n').map((l) => l.split(' ')[0])
      .filter((n) => n === `aw-${uid}` || n.startsWith(`aw-${uid}-`));
    // What a server killed earlier left of this uid's desktops: found by the uid's prefix when its desktop starts.
    const leftover = `aw-${uid}-0dead0ff`;
    assert.is(spawnSync('ip', ['netns', 'add', leftover]).status, 0);
    const known = new Set([statSync(old.jail!.netns!).ino, statSync(`/run/netns/${leftover}`).ino]);
    const made = () => ofUid().some((n) => existsSync(`/run/netns/${n}`) && !known.has(statSync(`/run/netns/${n}`).ino));
    // The old desktop's cleanup goes on only once the new start has made its namespace.
    ctx.desktops.onStopping = () => until(made, 30_000, 'the new start\'s namespace');
    try {
      const stopping = ctx.desktops.stop(RACE);
      const second = (await ctx.desktops.acquire(RACE)) as RfbDesktop;
      await stopping;
      assert.is.not(second, first);
      assert.ok(first.closed && !second.closed);
      const netns = ctx.desktops.xvnc!.sandboxOf(RACE)!.jail!.netns!;
      assert.equal(ofUid(), [netns.split('/').pop()], 'only the new desktop\'s namespace is left');
      assert.match(await inTerminal(ctx.desktops, RACE, 'race', 'echo "alive in $(ip -o link show tap0 | cut -d: -f2)"'), /alive in\s+tap0/);
    } finally {
      ctx.desktops.onStopping = null;
      spawnSync('ip', ['netns', 'delete', leftover]);
      await ctx.desktops.stop(RACE);
    }
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
