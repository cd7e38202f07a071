// What an agent's desktop could do to the server, tried as the agent would: read the server's secrets out of
// /proc while a file is dropped, keep a process alive past the desktop's stop, and plant FIFOs, links and huge
// files where the server reads. Per-agent users need a server running as root (CI runs as root).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, existsSync, lstatSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Containment } from '../../server/desktop/contain/index.ts';
import { processesOf } from '../../server/desktop/contain/processes.ts';
import { Sandbox } from '../../server/desktop/contain/sandbox.ts';
import { AGENT_UID_BASE, removeDataDir, testDesktopConfig, testXvnc } from './desktop-helpers.ts';
import { findBinary } from '../../server/desktop/host.ts';
import { processAlive as alive } from '../../server/system/processes.ts';

const isolation = suite('desktop isolation: the agent as an attacker');
const ROOT = process.getuid?.() === 0;
const HAVE_XVNC = !!findBinary('Xvnc', process.env.PATH ?? '');
// Agent ids no test server uses: their uids (AGENT_UID_BASE + id) are shared with this process's servers,
// whose desktops would otherwise show up in (or be ended by) these tests.
const [DROP, STOP, SANDBOX, PROFILE] = [9101, 9103, 9104, 9105];
const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };

async function until(test: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Needs root for per-agent users; on CI (root, .ci/run) a missing precondition is a failure. */
/** Writes `text` into a FIFO once a reader has it open; false while none has (O_NONBLOCK: ENXIO). */
function feedFifo(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') return false;
    throw err;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

function needs(condition: boolean, what: string): boolean {
  if (condition) return true;
  if (process.env.CI) assert.unreachable(`${what} on CI`);
  console.log(`  (${what}: skipped)`);
  return false;
}

const asAgent = (agentId: number, home: string, script: string, extraEnv: Record<string, string> = {}): ChildProcess =>
  spawn('/bin/sh', ['-c', script], {
    uid: AGENT_UID_BASE + agentId, gid: AGENT_UID_BASE + agentId,
    env: { ...new Sandbox(agentId, home, null, testDesktopConfig()).env, ...extraEnv }, stdio: 'ignore', detached: true,
  });

isolation('a program watching /proc while a file is dropped on its desktop finds none of the server\'s secrets', async () => {
  if (!needs(ROOT, 'per-agent users need root')) return;
  const dir = mkdtempSync(join(tmpdir(), 'aw-drop-watch-'));
  // The uncontained drop (DESKTOP_SANDBOX=off): contained, the copy runs in a sandbox of its own.
  const containment = new Containment({ dataDir: dir, log: quiet, config: testDesktopConfig({ DESKTOP_SANDBOX: 'off' }), isolate: true });
  const homes = containment.homes;
  const home = await homes.prepare(DROP);
  const seen = join(home, 'seen.txt');
  // The watcher copies the environment of every process of its uid it can read, other than its own kind.
  const watcher = asAgent(DROP, home, `
    while [ ! -e "$HOME/stop" ]; do
      for e in /proc/[0-9]*/environ; do
        if [ -r "$e" ] && ! tr '\\0' '\\n' < "$e" 2>/dev/null | grep -q '^WATCHER=1$'; then
          { echo "== $e"; tr '\\0' '\\n' < "$e"; } >> "$HOME/seen.txt" 2>/dev/null
        fi
      done
    done`, { WATCHER: '1' });
  process.env.AW_CANARY_SECRET = 'canary-4f1d9c';
  const source = join(dir, 'slow-source');
  await new Promise((resolve, reject) => execFile('mkfifo', [source], (err) => (err ? reject(err) : resolve(null))));
  try {
    // The drop reads from a FIFO the test feeds only once the watcher has seen the copying process.
    const drop = containment.putFile(DROP, source, 'drop.txt');
    await until(() => existsSync(seen) && /^== /m.test(readFileSync(seen, 'latin1')), 15_000, 'the watcher to read the helper\'s environment');
    // Not writeFileSync: opening a FIFO for writing blocks the whole process until a reader comes.
    await until(() => feedFifo(source, 'dropped while watched\n'), 15_000, 'the drop to open its source');
    const put = await drop;
    assert.is(readFileSync(put, 'utf8'), 'dropped while watched\n');
    const observed = readFileSync(seen, 'latin1');
    assert.match(observed, new RegExp(`^HOME=${home}$`, 'm'), 'the copying process runs with the desktop\'s environment');
    assert.not.match(observed, /canary-4f1d9c/);
    for (const name of ['DATABASE_URL', 'ADMIN_PASSWORD', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'AW_CANARY_SECRET']) {
      assert.not.match(observed, new RegExp(`^${name}=`, 'm'), name);
    }
  } finally {
    delete process.env.AW_CANARY_SECRET;
    writeFileSync(join(home, 'stop'), '');
    watcher.kill('SIGKILL');
    removeDataDir(dir);
  }
});

isolation('the shell profile is written once, as the agent, and never through a link the agent planted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-profile-'));
  const homes = new Containment({ dataDir: dir, log: quiet, config: testDesktopConfig(), isolate: ROOT }).homes;
  try {
    const home = await homes.prepare(PROFILE);
    await homes.ensureShellProfile(PROFILE);
    const profile = join(home, '.bashrc');
    assert.match(readFileSync(profile, 'utf8'), /^PS1='\$\{USER\}@\\h:\\w\\\$ '$/m);
    if (ROOT) assert.is(lstatSync(profile).uid, AGENT_UID_BASE + PROFILE);
    // The agent's own edits stay; a link it plants in its place points nowhere it may write.
    writeFileSync(profile, 'mine\n');
    await homes.ensureShellProfile(PROFILE);
    assert.is(readFileSync(profile, 'utf8'), 'mine\n');
    const target = join(dir, 'server-owned.txt');
    writeFileSync(target, 'server\n');
    rmSync(profile);
    symlinkSync(target, profile);
    await homes.ensureShellProfile(PROFILE);
    assert.is(readFileSync(target, 'utf8'), 'server\n');
  } finally {
    removeDataDir(dir);
  }
});

isolation('stopping a desktop ends every process of the agent\'s uid, also jobs it started on its own', async () => {
  if (!needs(ROOT, 'per-agent users need root') || !needs(HAVE_XVNC, 'Xvnc is not installed')) return;
  const dir = mkdtempSync(join(tmpdir(), 'aw-stop-all-'));
  const provider = testXvnc({ dataDir: dir, log: quiet, apps: ['terminal'], displayBase: 640, sound: false });
  const desktop = await provider.start(STOP);
  const uid = AGENT_UID_BASE + STOP;
  try {
    // A background job of its own (setsid: another session and process group than anything the server started).
    const job = asAgent(STOP, provider.homeOf(STOP), 'setsid sleep 600 & wait');
    job.unref();
    await until(async () => (await processesOf(uid)).some((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').startsWith('sleep\x00600')), 5000, 'the job');
    const before = await processesOf(uid);
    assert.ok(before.length >= 3, `Xvnc, the window manager, the terminal and the job: ${before.length}`);
    await desktop.stop();
    assert.equal(await processesOf(uid), []);
    assert.ok(before.every((pid) => !alive(pid)));
  } finally {
    await desktop.stop();
    removeDataDir(dir);
  }
});

isolation('Chromium on a desktop keeps its sandbox when the machine allows user namespaces', async () => {
  if (!needs(ROOT, 'per-agent users need root') || !needs(HAVE_XVNC, 'Xvnc is not installed')) return;
  if (!findBinary('chromium', process.env.PATH ?? '')) return console.log('  (Chromium is not installed: skipped)');
  const probe = spawn('unshare', ['--user', '--pid', '--net', '--fork', 'true'],
    { uid: AGENT_UID_BASE + SANDBOX, gid: AGENT_UID_BASE + SANDBOX, env: { PATH: process.env.PATH } });
  const namespaces = await new Promise<boolean>((resolve) => (probe.once('error', () => resolve(false)), probe.once('exit', (code) => resolve(code === 0))));
  const dir = mkdtempSync(join(tmpdir(), 'aw-sandbox-'));
  const provider = testXvnc({ dataDir: dir, log: quiet, apps: ['browser', 'terminal'], displayBase: 660, sound: false });
  const desktop = await provider.start(SANDBOX);
  await desktop.ready; // its processes settled: the probes that start beside the apps come and go
  try {
    const browsers = async () => (await processesOf(AGENT_UID_BASE + SANDBOX))
      .map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1'))
      .filter((c) => /chrom/i.test(c.split('\0')[0]));
    await until(async () => (await browsers()).length > 0, 15_000, 'Chromium');
    const flags = (await browsers())[0].split('\0');
    assert.is(flags.includes('--no-sandbox'), !namespaces, `user namespaces ${namespaces ? 'work' : 'do not work'} here; flags: ${flags.join(' ')}`);
  } finally {
    await desktop.stop();
    removeDataDir(dir);
  }
});

isolation('FIFOs, links and huge files planted at the X locks and at ~/.xvnc.pid hold up no start or stop', async () => {
  if (!needs(HAVE_XVNC, 'Xvnc is not installed')) return;
  // In a child process with a deadline: a server frozen by a FIFO fails here instead of hanging.
  const child = spawn(process.execPath, ['--import', './test/setup/register.mjs', 'test/server/fixtures/planted-locks.ts', '680'],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), resolve(null)), 120_000);
    child.once('exit', (c) => (clearTimeout(timer), resolve(c)));
  });
  assert.is(code, 0, `the planted files froze or broke the desktop: ${out.slice(-2000)}`);
  const result = JSON.parse(out.trim().split('\n').at(-1)!);
  assert.equal(result.claimed, [true, true, true], 'each planted lock is no X server\'s: the display is free');
  assert.equal(result.displays, [680, 680], 'the first display is used, start after start');
});

isolation.run();
