// Desktops that sleep when idle (issue 48), on a real server process with real, contained Xvnc desktops: a desktop
// left alone is frozen whole by its cgroup's freezer (a busy loop in it gets no CPU for 60 s, and its memory is kept:
// the same process runs on after), and wakes for a viewer with its screen as it was, for a run, a mail and a
// schedule. With several instances (PostgreSQL), one asleep on A is woken through B, and B's list says it slept.
// Where the freezer is missing (an uncontained desktop has no control group), desktops stay awake and the log says
// why once. A desktop a dead server left frozen is ended by the next start of its agent.
import { readdirSync, readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadDesktopConfig } from '../../server/config/index.ts';
import { HomeImages } from '../../server/desktop/contain/home-image.ts';
import { diffPixels, GuacTestClient, removeDataDir, testDesktops } from './desktop-helpers.ts';
import { spawnServer, until } from './fault-helpers.ts';
import { api, fleetUnavailable, HAVE_XVNC, ok, screenshot, startFleet, type Fleet } from './fleet-helpers.ts';
import { ADMIN, testEnv } from './helpers.ts';

const sleep = suite('desktop sleep');
// The server of the tests below always runs on PGlite (DATABASE_URL ''): the PostgreSQL pass of the suite would only
// repeat them, minute asleep included, so it runs the fleet's test alone.
const ONE_INSTANCE = !process.env.TEST_DATABASE_URL;
const test = !HAVE_XVNC ? sleep.skip : ONE_INSTANCE ? sleep : () => {};
const UID_BASE = loadDesktopConfig(testEnv()).uidBase + 250;
const s = {} as { server: Awaited<ReturnType<typeof spawnServer>>; dataDir: string; token: string; smtpPort: number };

sleep.before(async () => {
  if (!HAVE_XVNC) return void console.log('\n    SKIPPED: Xvnc is not installed; desktops cannot sleep here.');
  if (!ONE_INSTANCE) return;
  s.dataDir = mkdtempSync(join(tmpdir(), 'aw-sleep-'));
  s.server = await spawnServer({
    ...(testEnv() as Record<string, string>), DATABASE_URL: '', DATA_DIR: s.dataDir, DESKTOP_PROVIDER: 'xvnc', DESKTOP_APPS: 'terminal',
    DESKTOP_IDLE_SLEEP_S: '1', AGENT_UID_BASE: String(UID_BASE), DESKTOP_DISPLAY_BASE: '560', MODEL_PROVIDER: 'offline',
    ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, SCHEDULER_TICK_MS: '300', MAIL_DOMAIN: 'sleep.test', MAIL_AUTH: 'off',
  });
  s.token = (await ok(s.server.url, '/api/auth/sign-in', { body: ADMIN })).token;
  s.smtpPort = Number(/on SMTP port (\d+)/.exec(s.server.output())?.[1]);
});

sleep.after(async () => {
  if (!s.server) return;
  s.server.child.kill('SIGTERM');
  const stopped = () => s.server.child.exitCode !== null || s.server.child.signalCode !== null;
  await until(stopped, 20_000, 'the server to stop').catch(() => s.server.child.kill('SIGKILL'));
  HomeImages.unmountUnder(s.dataDir);
  rmSync(s.dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

const sleeping = async (base: string, agentId: number) => (await ok(base, `/api/agents/${agentId}`, { token: s.token })).desktop_sleeping as boolean;
const untilSleeping = (base: string, agentId: number, want: boolean, what: string) =>
  until(async () => ((await sleeping(base, agentId)) === want ? true : null), 30_000, what, 100);

/** CPU time (clock ticks of utime + stime) of every process running as `uid`, by pid. */
function cpuOf(uid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(/^Uid:\s*(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]) !== uid) continue;
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      out.set(Number(entry), Number(fields[11]) + Number(fields[12]));
    } catch {} // ended meanwhile
  }
  return out;
}
/** The host pid of the busy loop the test started in the desktop of `uid`. */
function loopOf(uid: number): number | null {
  for (const pid of cpuOf(uid).keys()) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('while :; do :; done')) return pid;
    } catch {} // ended meanwhile
  }
  return null;
}
const total = (cpu: Map<number, number>) => [...cpu.values()].reduce((a, b) => a + b, 0);

async function viewer(base: string, agentId: number) {
  const entered = await ok(base, '/api/agents/enter', { token: s.token, body: { agent_id: agentId } });
  const client = await GuacTestClient.connect(base.replace(/^http/, 'ws') + entered.guacamole_tunnel_url);
  await client.until(() => client.frames > 0, 30_000, 'the first frame');
  return { client, session: entered.session_id as string };
}

/** Whether the viewer's picture shows the terminal (xterm's white window on the black root): apps come after the first frame. */
function terminalShown(client: GuacTestClient): boolean {
  let white = 0;
  for (let i = 0; i < client.canvas.length; i += 4 * 97) if (client.canvas[i] > 240 && client.canvas[i + 1] > 240 && client.canvas[i + 2] > 240) white++;
  return white / (client.canvas.length / (4 * 97)) > 0.05;
}

function typeLine(client: GuacTestClient, line: string): void {
  for (const ch of line) (client.send('key', ch.codePointAt(0)!, 1), client.send('key', ch.codePointAt(0)!, 0));
  client.send('key', 0xff0d, 1);
  client.send('key', 0xff0d, 0);
}

const newAgent = async (name: string) => (await ok(s.server.url, '/api/agents/', { token: s.token, body: { name } })).id as number;

test('an idle desktop sleeps: a busy loop in it gets no CPU for 60 s; a viewer wakes it with its screen as it was', async () => {
  const base = s.server.url;
  const agent = await newAgent('Sleeper');
  const uid = UID_BASE + agent;
  const { client, session } = await viewer(base, agent);
  await client.until(() => terminalShown(client), 30_000, 'the terminal');
  await ok(base, `/api/agents/${agent}/control`, { token: s.token, body: { session_id: session, take: true } });
  typeLine(client, 'sh -c "while :; do :; done"&');
  const loopPid = await until(() => loopOf(uid), 20_000, 'the loop'); // a host pid (the desktop has its own pid namespace)
  assert.ok(await sleeping(base, agent) === false, 'awake while watched');
  client.close();

  await untilSleeping(base, agent, true, 'the desktop to sleep');
  const before = (await screenshot(base, s.token, agent)).data;
  const frozen = cpuOf(uid);
  await new Promise((r) => setTimeout(r, 60_000)); // the minute asleep: the measurement, not a wait for a condition
  const after = cpuOf(uid);
  assert.ok(after.has(loopPid), 'the loop is still there: frozen, not ended');
  assert.is((after.get(loopPid) ?? 0) - (frozen.get(loopPid) ?? 0), 0, 'the busy loop ran while asleep');
  assert.ok((total(after) - total(frozen)) * 10 < 10, `the desktop used ${(total(after) - total(frozen)) * 10} ms of CPU in 60 s asleep`);
  assert.ok(await sleeping(base, agent), 'still asleep: a screenshot does not wake it');

  // A viewer wakes it; its first frame is the screen as it was.
  const woken = await viewer(base, agent);
  assert.is(diffPixels(woken.client.canvas, before), 0, 'the first frame after waking is the screen before sleeping');
  await untilSleeping(base, agent, false, 'the desktop to say it is awake');
  await until(() => (cpuOf(uid).get(loopPid) ?? 0) > (after.get(loopPid) ?? 0) || null, 10_000, 'the loop to run again');
  assert.match(s.server.output(), new RegExp(`desktop ${agent}: awake after \\d+\\.\\d s asleep`));
  process.kill(loopPid, 'SIGKILL');
  await until(() => !cpuOf(uid).has(loopPid) || null, 10_000, 'the loop to end');
  woken.client.close();
});

test('a run, a mail and a schedule each wake a sleeping desktop', async () => {
  const base = s.server.url;
  const agent = await newAgent('Woken');
  await ok(base, `/api/agents/${agent}/run-state`, { token: s.token, body: { state: 'run_all' } });
  const { client } = await viewer(base, agent); // started once, then left to sleep
  client.close();
  const threadsBefore = async () => (await ok(base, `/api/agents/${agent}`, { token: s.token })).threads.length as number;
  const wakes = () => (s.server.output().match(new RegExp(`desktop ${agent}: awake after`, 'g')) ?? []).length;

  const woke = async (what: string, trigger: () => Promise<unknown>) => {
    await untilSleeping(base, agent, true, `the desktop to sleep before ${what}`);
    const [threads, awoken] = [await threadsBefore(), wakes()];
    await trigger();
    await until(async () => ((await threadsBefore()) > threads ? true : null), 30_000, `${what} to make a thread`, 100);
    await until(() => wakes() > awoken || null, 30_000, `${what} to wake the desktop`, 100);
  };
  await woke('a run', () => ok(base, `/api/threads/${agent}/create-new-thread`, { token: s.token, body: { user_text: 'Take a screenshot' } }));

  const prefix = `sleepy-${Date.now().toString(36)}`;
  const settings = await ok(base, `/api/agents/${agent}/email-settings`, {
    method: 'PUT', token: s.token, body: { email_prefix: prefix, email_accept_from_addresses: ['@example.test'] },
  });
  await woke('a mail', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: s.smtpPort, secure: false, ignoreTLS: true, name: 'client.example.test' });
    try {
      await transport.sendMail({ from: 'ann@example.test', to: settings.email_address, subject: 'Wake up', text: 'Take a screenshot' });
    } finally {
      transport.close();
    }
  });

  const rule = { frequency: 'interval', interval: 2, message: 'Take a screenshot' };
  await woke('a schedule', () => ok(base, `/api/scheduler/${agent}`, { token: s.token, body: rule }));
});

test('without a freezer (an uncontained desktop) a desktop stays awake, and the log says why once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-sleepless-'));
  const said: string[] = [];
  const log = { info: (m: string) => said.push(m), error: (m: string) => said.push(m) };
  const desktops = testDesktops({
    dataDir: dir, log, env: { DESKTOP_SANDBOX: 'off' }, config: { provider: 'xvnc', apps: ['terminal'], displayBase: 580, sleepMs: 200, sandbox: 'off' },
  });
  try {
    const desktop = await desktops.acquire(1);
    desktop.touch();
    await until(() => said.some((m) => m.includes('idle desktops stay awake')) || null, 10_000, 'the log to say why');
    for (let i = 0; i < 3; i++) await (desktops as any).restIdle(); // more idle ticks: nothing more is said
    assert.is(said.filter((m) => m.includes('idle desktops stay awake')).length, 1, 'said once');
    assert.match(said.find((m) => m.includes('idle desktops stay awake'))!, /DESKTOP_SANDBOX=off/);
    assert.is((desktop as any).asleep, false);
  } finally {
    await desktops.stopAll();
    removeDataDir(dir);
  }
});

test('a desktop left asleep by a server that died is ended by the next start of its agent, frozen or not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-sleep-left-'));
  const config = { provider: 'xvnc' as const, apps: ['terminal' as const], displayBase: 590, sleepMs: 60_000 };
  const log = { info: () => {}, error: () => {} };
  const dead = testDesktops({ dataDir: dir, log, config });
  const next = testDesktops({ dataDir: dir, log, config });
  try {
    const left = await dead.acquire(7);
    await (left as any).ready;
    assert.ok(await (left as any).sleep(), 'frozen');
    const uid = loadDesktopConfig(testEnv()).uidBase + 7;
    const before = [...cpuOf(uid).keys()];
    assert.ok(before.length > 0);
    // `dead` is never stopped, as a killed server never stops its desktops: the next start of agent 7 ends them.
    await next.acquire(7);
    await until(() => before.every((pid) => !cpuOf(uid).has(pid)) || null, 10_000, 'the frozen leftovers to end');
  } finally {
    await next.stopAll();
    await dead.stopAll(); // what else it holds (the network it made ahead)
    removeDataDir(dir);
  }
});

const unavailable = await fleetUnavailable();
(unavailable ? sleep.skip : sleep)('with two instances: a desktop asleep on A shows as sleeping on B and wakes for a viewer through B', async () => {
  let fleet: Fleet | null = null;
  try {
    fleet = await startFleet({ DESKTOP_IDLE_SLEEP_S: '1' });
    const { a, b } = fleet;
    const token = (await ok(a.url, '/api/auth/sign-in', { body: ADMIN })).token;
    const agent = (await ok(a.url, '/api/agents/', { token, body: { name: 'Fleet sleeper' } })).id;
    const entered = await ok(a.url, '/api/agents/enter', { token, body: { agent_id: agent } });
    const first = await GuacTestClient.connect(a.url.replace(/^http/, 'ws') + entered.guacamole_tunnel_url);
    await first.until(() => first.frames > 0, 30_000, 'the first frame on A');
    first.close();
    const onB = async () => (await api(b.url, `/api/agents/${agent}`, { token })).body.desktop_sleeping;
    await until(async () => ((await onB()) ? true : null), 30_000, 'B to see the desktop asleep', 100);
    const through = await ok(b.url, '/api/agents/enter', { token, body: { agent_id: agent } });
    const viewerB = await GuacTestClient.connect(b.url.replace(/^http/, 'ws') + through.guacamole_tunnel_url);
    await viewerB.until(() => viewerB.frames > 0, 30_000, 'the first frame through B');
    await until(() => new RegExp(`desktop ${agent}: awake after`).test(a.output()) || null, 10_000, "A's desktop to wake");
    await until(async () => ((await onB()) === false ? true : null), 10_000, 'B to see it awake', 100);
    viewerB.close();
    // B's relay, unused now, goes before A would put the desktop to sleep (it counts as a viewer there): it sleeps again.
    await until(async () => ((await onB()) ? true : null), 30_000, 'the desktop asleep again once B\'s viewer left', 200);
  } finally {
    await fleet?.close();
  }
});

sleep.run();
