// Faults and several instances, each bounded in time and waiting on conditions:
// - kill -9 of the real server (a child process) during a model call, then a restart on the same data:
//   no thread left running, no step or message lost, the run failed with an error_message.
// - Two instances on one PostgreSQL (a throwaway cluster of our own, never the machine's): a message
//   written through one reaches a socket on the other; a queued thread runs once.
// - That PostgreSQL restarted under load: calls answer 503 {detail} meanwhile, recover by themselves,
//   nothing acknowledged before is lost, and events cross instances again.
// - 200 sockets connecting and dropping at random: handles, bus listeners and heap return to baseline.
// Xvnc killed under a viewer: test/server/desktop.test.ts ("Xvnc killed with SIGKILL": tunnels end, the
// desktop comes back, a new tunnel works) and e2e/desktop.spec.ts (the browser's view reconnects by itself).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WebSocket } from 'ws';
import { loadConfig } from '../../server/config/index.ts';
import { openDb, type Db } from '../../server/db/db.ts';
import { start, type Running } from '../../server/start.ts';
import { RESTART_ERROR } from '../../server/runner/runner.ts';
import { PUBSUB_PROTOCOL } from '../../server/realtime/pubsub-hub.ts';
import { ADMIN, newAgent, newUser, openSocket, testEnv, testServer } from './helpers.ts';
import { fakeModel, HAVE_POSTGRES_BINARIES, ownPostgres, spawnServer, until } from './fault-helpers.ts';
import { TOPICS } from '../../server/realtime/topics.ts';

const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };
const PASSWORD = 'correct horse battery';

type Reply = { status: number; body: any };
async function api(base: string, path: string, init: { token?: string; body?: unknown; method?: string; timeoutMs?: number } = {}): Promise<Reply> {
  const res = await fetch(base + path, {
    method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
    headers: { ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}), ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    signal: AbortSignal.timeout(init.timeoutMs ?? 15_000),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, body };
}

async function ok(base: string, path: string, init: Parameters<typeof api>[2] = {}) {
  const res = await api(base, path, init);
  if (res.status >= 300) throw new Error(`${init.method ?? 'call'} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

// ---

const crash = suite('faults: kill -9 during a run');

crash('the server killed during a model call restarts with no thread running, nothing lost, and the run failed with an error_message', async () => {
  // The first model call never answers: the server is killed while it waits.
  let first = true;
  const model = await fakeModel(() => {
    const hold = first;
    first = false;
    return hold ? null : 'done';
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-fault-kill-'));
  // On the PostgreSQL pass: a database of its own on the test server; else PGlite in the data directory.
  const pgUrl = process.env.TEST_DATABASE_URL;
  const dbName = `aw_fault_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  let admin: Db | null = null;
  if (pgUrl) {
    admin = await openDb({ databaseUrl: pgUrl });
    await admin.query(`CREATE DATABASE ${dbName}`);
  }
  const env = {
    DATA_DIR: dataDir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password,
    MODEL_PROVIDER: 'openai', OPENAI_BASE_URL: model.url, OPENAI_MODEL: 'fault-model',
    DATABASE_URL: pgUrl ? pgUrl.replace(/\/[^/]*$/, `/${dbName}`) : '',
  };
  let server = await spawnServer(env);
  try {
    const token = (await ok(server.url, '/api/auth/sign-in', { body: ADMIN })).token;
    const agent = await ok(server.url, '/api/agents/', { token, body: { name: 'Crash agent' } });
    await ok(server.url, `/api/agents/${agent.id}/notes`, { token, method: 'PUT', body: { notes: 'written before the crash' } });
    const thread = await ok(server.url, `/api/threads/${agent.id}/create-new-thread`, { token, body: { user_text: 'please hold the line' } });
    await ok(server.url, '/api/agents/start', { token, body: { agent_id: agent.id } });
    await until(() => model.held.length > 0, 20_000, 'the model call to be in flight');
    assert.ok((await ok(server.url, `/api/threads/${thread.id}`, { token })).thread_running);
    const { steps } = await ok(server.url, `/api/threads/${thread.id}/steps`, { token });
    const { messages } = await ok(server.url, `/api/messages/agent/${agent.id}`, { token });
    assert.ok(steps.length >= 1 && messages.length >= 1);

    server.child.kill('SIGKILL');
    await until(() => server.child.exitCode !== null || server.child.signalCode !== null, 10_000, 'the server to die');
    server = await spawnServer(env);

    const token2 = (await ok(server.url, '/api/auth/sign-in', { body: ADMIN })).token;
    const after = await until(async () => {
      const t = await ok(server.url, `/api/threads/${thread.id}`, { token: token2 });
      return !t.thread_running && t.error_message ? t : null;
    }, 20_000, 'the interrupted run to be failed');
    assert.is(after.error_message, RESTART_ERROR);
    const agentAfter = await ok(server.url, `/api/agents/${agent.id}`, { token: token2 });
    assert.is(agentAfter.agent_running, false);
    // Every step and message written before the crash is still there, unchanged.
    const { steps: stepsAfter } = await ok(server.url, `/api/threads/${thread.id}/steps`, { token: token2 });
    for (const step of steps) assert.equal(stepsAfter.find((s: any) => s.id === step.id)?.user_text, step.user_text);
    const { messages: messagesAfter } = await ok(server.url, `/api/messages/agent/${agent.id}`, { token: token2 });
    for (const m of messages) assert.ok(messagesAfter.some((n: any) => n.id === m.id), `message ${m.id} lost`);
    assert.is((await ok(server.url, `/api/agents/${agent.id}/notes`, { token: token2 })).notes, 'written before the crash');
    // The thread is not stuck: a new message runs it again, to the end.
    await ok(server.url, `/api/threads/${thread.id}/set-user-input-and-schedule`, { token: token2, body: { user_text: 'now finish' } });
    await ok(server.url, '/api/agents/start', { token: token2, body: { agent_id: agent.id } });
    await until(async () => {
      const t = await ok(server.url, `/api/threads/${thread.id}`, { token: token2 });
      return !t.thread_running && t.schedule_sequence === null;
    }, 20_000, 'the resumed thread to finish');
  } finally {
    server.child.kill('SIGTERM');
    await until(() => server.child.exitCode !== null || server.child.signalCode !== null, 15_000, 'the server to stop')
      .catch(() => server.child.kill('SIGKILL'));
    await model.close();
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
      await admin.close();
    }
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
});

crash.run();

// ---
// Our own PostgreSQL cluster: once per `npm test` (on the PGlite pass), as it does not use the test database.

const cluster = suite('faults: two instances on one PostgreSQL, and PostgreSQL restarted under load');
const c = {} as {
  pg: Awaited<ReturnType<typeof ownPostgres>>;
  model: Awaited<ReturnType<typeof fakeModel>>;
  one: Running;
  two: Running;
  dbs: Db[];
  dirs: string[];
  token: string;
  agent: number;
  thread: number;
};
const ownCluster = !process.env.TEST_DATABASE_URL && HAVE_POSTGRES_BINARIES;

async function instance(): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-fault-inst-'));
  const db = await openDb({ databaseUrl: c.pg.url });
  c.dbs.push(db);
  c.dirs.push(dataDir);
  return start({
    ...loadConfig(testEnv({ DESKTOP_PROVIDER: 'none', MODEL_PROVIDER: 'openai', OPENAI_BASE_URL: c.model.url, OPENAI_MODEL: 'fault-model' })),
    dataDir, port: 0, smtpPort: 0, adminEmail: ADMIN.email, adminPassword: ADMIN.password, staticDir: null, logRequests: false,
  }, db, quiet);
}

if (!ownCluster) {
  console.log(process.env.TEST_DATABASE_URL
    ? '  (own PostgreSQL cluster tests run on the PGlite pass)'
    : '  ⚠ initdb/pg_ctl missing: own PostgreSQL cluster tests skipped');
  if (process.env.CI && !process.env.TEST_DATABASE_URL) {
    cluster('PostgreSQL server binaries are installed', () => assert.unreachable('initdb is missing on CI'));
  }
} else {
  cluster.before(async () => {
    c.dbs = [];
    c.dirs = [];
    c.pg = await ownPostgres();
    c.model = await fakeModel(() => 'done');
    c.one = await instance(); // migrates first; the second finds the schema in place
    c.two = await instance();
    c.token = (await ok(c.one.url, '/api/auth/sign-in', { body: ADMIN })).token;
    c.agent = (await ok(c.one.url, '/api/agents/', { token: c.token, body: { name: 'Cluster agent' } })).id;
    c.thread = (await ok(c.one.url, '/api/threads/', { token: c.token, body: { agent_id: c.agent } })).id;
  });

  cluster.after(async () => {
    for (const r of [c.one, c.two]) await r?.close();
    for (const db of c.dbs ?? []) await db.close().catch(() => {});
    await c.model?.close();
    await c.pg?.close();
    for (const dir of c.dirs ?? []) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  cluster('a message written through one instance reaches a socket on the other', async () => {
    const socket = await openSocket(`${c.two.url.replace('http', 'ws')}/api/messages/agent/${c.agent}/ws?token=${c.token}`);
    const text = `across instances ${Date.now()}`;
    await ok(c.one.url, `/api/threads/${c.thread}/set-user-input`, { token: c.token, body: { user_text: text } });
    await socket.next((f) => JSON.stringify(f).includes(text), 10_000);
    socket.ws.close();
  });

  cluster('a queued thread runs once, whichever instance claims it', async () => {
    const tag = `run once ${randomUUID()}`;
    const thread = await ok(c.two.url, `/api/threads/${c.agent}/create-new-thread`, { token: c.token, body: { user_text: tag } });
    await ok(c.one.url, '/api/agents/start', { token: c.token, body: { agent_id: c.agent } });
    await until(async () => {
      const t = await ok(c.one.url, `/api/threads/${thread.id}`, { token: c.token });
      return !t.thread_running && t.schedule_sequence === null;
    }, 20_000, 'the thread to run');
    // Both runners poll every second: give each a few chances to run it again, then count.
    await until(async () => (await c.one.parts.db.query('SELECT 1 FROM instances')).length >= 2, 5000, 'both runners alive');
    const claimsSettled = Date.now() + 2500;
    await until(() => Date.now() > claimsSettled
      && c.one.parts.runner!.activeThreads().length === 0
      && c.two.parts.runner!.activeThreads().length === 0, 10_000, 'both runners idle');
    assert.is(c.model.calls.filter((t) => t.includes(tag)).length, 1, `model calls: ${JSON.stringify(c.model.calls)}`);
    const [{ n }] = await c.one.parts.db.query<{ n: number }>('SELECT count(*)::int AS n FROM llm_traces WHERE thread_id = $1', [thread.id]);
    assert.is(n, 1);
  });

  cluster('PostgreSQL restarted under load: 503 {detail} meanwhile, recovery on its own, nothing acknowledged is lost', async () => {
    const listener = await openSocket(`${c.two.url.replace('http', 'ws')}/api/messages/agent/${c.agent}/ws?token=${c.token}`);
    const acknowledged: string[] = [];
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let stop = false;
    let n = 0;
    const worker = async () => {
      while (!stop) {
        const text = `load ${++n}`;
        try {
          const write = n % 2 === 0;
          const res = write
            ? await api(c.one.url, `/api/threads/${c.thread}/set-user-input`, { token: c.token, body: { user_text: text }, timeoutMs: 20_000 })
            : await api(c.one.url, '/api/agents/', { token: c.token, timeoutMs: 20_000 });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 200 && write) acknowledged.push(text);
          if (res.status !== 200 && (res.status !== 503 || !res.body?.detail)) failures.push(`${res.status} ${JSON.stringify(res.body)}`);
        } catch (err) {
          failures.push(`no answer: ${(err as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    await until(() => acknowledged.length >= 5, 10_000, 'load before the fault');
    await c.pg.stop();
    await until(() => (statuses.get(503) ?? 0) >= 5, 10_000, '503 answers while PostgreSQL is down');
    const down = await api(c.one.url, `/api/threads/${c.thread}/steps`, { token: c.token });
    assert.is(down.status, 503);
    assert.type(down.body.detail, 'string');
    // A socket opened meanwhile is told to try again later (1013), not "internal error".
    const refused = await openSocket(`${c.one.url.replace('http', 'ws')}/api/messages/agent/${c.agent}/ws?token=${c.token}`);
    assert.is((await refused.closedWith(10_000))?.code, 1013);
    await c.pg.start();
    const okBefore = statuses.get(200) ?? 0;
    await until(() => (statuses.get(200) ?? 0) >= okBefore + 10, 30_000, 'calls to succeed again without help');
    stop = true;
    await Promise.all(workers);
    assert.equal(failures, [], 'every call answered 200 or 503 {detail}');
    // Everything acknowledged is stored, before and after the fault.
    const { steps } = await ok(c.one.url, `/api/threads/${c.thread}/steps?limit=1000`, { token: c.token });
    const stored = new Set(steps.map((s: any) => s.user_text));
    const lost = acknowledged.filter((t) => !stored.has(t));
    assert.equal(lost, [], `${lost.length} of ${acknowledged.length} acknowledged messages lost`);
    // Events cross instances again (the LISTEN connection came back), on a socket opened before the fault.
    const text = `after the restart ${Date.now()}`;
    await until(async () => {
      await ok(c.one.url, `/api/threads/${c.thread}/set-user-input`, { token: c.token, body: { user_text: text } });
      return listener.frames.some((f) => JSON.stringify(f).includes(text));
    }, 20_000, 'an event from the other instance after the restart', 1000);
    listener.ws.close();
    // The runners lived through it too: a queued thread still runs.
    const thread = await ok(c.two.url, `/api/threads/${c.agent}/create-new-thread`, { token: c.token, body: { user_text: 'after the fault' } });
    await ok(c.two.url, '/api/agents/start', { token: c.token, body: { agent_id: c.agent } });
    await until(async () => {
      const t = await ok(c.two.url, `/api/threads/${thread.id}`, { token: c.token });
      return !t.thread_running && t.schedule_sequence === null ? t : null;
    }, 20_000, 'a thread to run after the fault');
  });
}

cluster.run();

// ---

const churn = suite('faults: sockets connecting and dropping at random');
const CHURN_MS = Number(process.env.FAULT_CHURN_MS) || 15_000;
const CLIENTS = Number(process.env.FAULT_CHURN_CLIENTS) || 200;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** Listeners on the server's bus: one per open feed or joined hub group. */
function busListeners(bus: object): number {
  const emitter = ((bus as any).emitter ?? (bus as any).local?.emitter) as import('node:events').EventEmitter;
  return emitter.eventNames().reduce((sum, name) => sum + emitter.listenerCount(name), 0);
}

churn(`200 clients for ${CHURN_MS / 1000} s: handles, bus listeners and heap return to baseline`, async () => {
  const running = await testServer();
  const user = await newUser('churn');
  const agent = await newAgent(user.id);
  const thread = (await fetch(`${running.url}/api/threads/`, {
    method: 'POST', headers: { Authorization: `Bearer ${user.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ agent_id: agent.id }),
  }).then((r) => r.json())).id;
  const hub = (await fetch(`${running.url}/api/realtime/negotiate`, {
    method: 'POST', headers: { Authorization: `Bearer ${user.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ thread_id: thread }),
  }).then((r) => r.json()));
  const base = running.url.replace('http', 'ws');
  const targets = [
    () => new WebSocket(`${base}/api/messages/agent/${agent.id}/ws?token=${user.token}`),
    () => new WebSocket(`${base}/api/actions/agent/${agent.id}/ws?token=${user.token}`),
    () => new WebSocket(hub.url, PUBSUB_PROTOCOL),
    () => new WebSocket(`${base}/api/messages/agent/${agent.id}/ws?token=forged`),
  ];

  const baseline = { handles: process.getActiveResourcesInfo().length, listeners: busListeners(running.parts.bus), heap: heapAfterGc() };
  const open = new Set<WebSocket>();
  let opened = 0;
  let peak = 0;
  const ends = Date.now() + CHURN_MS;
  const churn = { type: 'updated' as const, agent_id: agent.id, message_id: 0, message: { text: 'x'.repeat(500) } };
  const traffic = setInterval(() => running.parts.bus.publish(TOPICS.agentMessages(agent.id), churn), 20);
  const client = async () => {
    while (Date.now() < ends) {
      const ws = targets[Math.floor(Math.random() * targets.length)]();
      open.add(ws);
      ws.on('error', () => {});
      ws.on('open', () => {
        opened++;
        peak = Math.max(peak, busListeners(running.parts.bus));
        if (ws.protocol === PUBSUB_PROTOCOL) ws.send(JSON.stringify({ type: 'joinGroup', group: hub.group, ackId: 1 }));
      });
      const closed = new Promise((r) => ws.once('close', r));
      const how = Math.random();
      if (how < 0.15) {
        // Vanish mid-handshake.
        await new Promise((r) => setTimeout(r, Math.random() * 30));
        ws.terminate();
      } else {
        await Promise.race([new Promise((r) => ws.once('open', r)), closed]);
        await new Promise((r) => setTimeout(r, Math.random() * 800));
        // Leave politely, or hang up without a close frame.
        if (how < 0.6) ws.close();
        else ws.terminate();
      }
      await closed;
      open.delete(ws);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  if (process.env.TEST_VERBOSE) console.log({ opened, peak, baseline });
  clearInterval(traffic);
  assert.ok(opened > 200, `only ${opened} sockets opened`);
  assert.ok(peak > baseline.listeners + 20, `sockets did subscribe (peak ${peak})`);

  await until(() => busListeners(running.parts.bus) === baseline.listeners, 10_000,
    `bus listeners back to ${baseline.listeners} (now ${busListeners(running.parts.bus)})`);
  await until(() => process.getActiveResourcesInfo().length <= baseline.handles + 3, 10_000,
    `handles back to ~${baseline.handles} (now ${process.getActiveResourcesInfo().length}: ${process.getActiveResourcesInfo().join(',')})`);
  const heap = await until(() => {
    const h = heapAfterGc();
    return h < baseline.heap + 16 * 1024 * 1024 ? h : null;
  }, 10_000, 'heap back near its baseline', 500);
  assert.ok(heap > 0);
});

churn.run();
