// Webhooks (issue 46) on the real server as a process: a receiver that verifies every delivery with the
// standardwebhooks package sees a run start and finish and a help request, then answers 500 to a delivery that
// the next start of the server retries (the queue is in the database); and two instances of one PostgreSQL
// database deliver each event once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openDb } from '../../server/db/db.ts';
import { ADMIN } from './helpers.ts';
import { spawnServer, until } from './fault-helpers.ts';
import { api, ok } from './fleet-helpers.ts';
import { startReceiver, type Received } from './webhook-receiver.ts';

const restart = suite('webhooks across a restart and on two instances');
const PUBLIC_URL = 'https://aw.example.test';

async function signIn(base: string): Promise<string> {
  return (await ok(base, '/api/auth/sign-in', { body: { email: ADMIN.email, password: ADMIN.password } })).token;
}

async function stop(server: Awaited<ReturnType<typeof spawnServer>>): Promise<void> {
  server.child.kill('SIGTERM');
  await until(() => server.child.exitCode !== null || server.child.signalCode !== null, 20_000, 'the server to stop');
}

restart('a receiver verifies a run started and finished, a help request, and the retry of a 500 made by the next start', async () => {
  let failing = false;
  const rx = await startReceiver((path) => (path === '/hook' && failing ? { status: 500 } : { status: 204 }));
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-webhooks-'));
  const env = {
    DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE: '1', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, MODEL_PROVIDER: 'offline', PUBLIC_URL,
  };
  let server = await spawnServer(env);
  try {
    let token = await signIn(server.url);
    const agent = await ok(server.url, '/api/agents/', { token, body: { name: 'Webhooked' } });
    const hook = await ok(server.url, '/api/webhooks', { token, body: { url: rx.url('/hook'), events: ['run.started', 'run.finished', 'run.needs_help'] } });
    const verified = (type: string, threadId: number) => until(() => rx.got.find((r) => r.json.type === type && r.json.data.thread_id === threadId
      && rx.verify(r, hook.secret)), 30_000, `${type} of thread ${threadId}`);
    const run = async (text: string) => {
      const thread = await ok(server.url, `/api/threads/${agent.id}/create-new-thread`, { token, body: { user_text: text } });
      await ok(server.url, `/api/agents/${agent.id}/run-state`, { token, body: { state: 'run_all' } });
      return thread.id as number;
    };
    const report = await run('write a report Webhooks: they work');
    const started = await verified('run.started', report);
    const finished = await verified('run.finished', report);
    assert.is(finished.json.data.outcome, 'done');
    assert.is(started.json.data.links.run, `${PUBLIC_URL}/replay/${started.json.data.run_id}`);
    const asking = await run('ask me for help with "May I pay the invoice?"');
    const help = await verified('run.needs_help', asking);
    assert.is(help.json.data.question, 'May I pay the invoice?');
    assert.is(help.json.data.links.desktop, `${PUBLIC_URL}/agent/${agent.id}?control=1`);

    // The receiver fails; the server stops before the retry is due and the next start sends it.
    failing = true;
    const test = await ok(server.url, `/api/webhooks/${hook.id}/test`, { token, body: {} });
    const first = await until(() => rx.got.find((r) => r.headers['webhook-id'] === test.event_id), 15_000, 'the first attempt');
    await until(async () => (await ok(server.url, `/api/webhooks/${hook.id}/deliveries`, { token })).deliveries
      .find((d: any) => d.id === test.id && d.response_code === 500), 10_000, 'the 500 in the log');
    await stop(server);
    failing = false;
    const restarting = Date.now();
    server = await spawnServer(env);
    const retry = await until(() => rx.got.find((r: Received) => r.at >= restarting && r.headers['webhook-id'] === test.event_id), 30_000, 'the retry');
    rx.verify(retry, hook.secret);
    assert.is(retry.body, first.body, 'the same event');
    token = await signIn(server.url);
    const done = await until(async () => (await ok(server.url, `/api/webhooks/${hook.id}/deliveries`, { token })).deliveries
      .find((d: any) => d.id === test.id && d.status === 'delivered'), 10_000, 'delivered');
    assert.ok(done.attempt >= 2, 'after the failed attempt (or two, if the first instance retried before it stopped)');
    assert.is(done.response_code, 204);
  } finally {
    await stop(server).catch(() => server.child.kill('SIGKILL'));
    await rx.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
});

// Two instances need a database both reach: PostgreSQL (the PostgreSQL pass runs this; the PGlite one reports it skipped).
const pgUrl = process.env.TEST_DATABASE_URL;
(pgUrl ? restart : restart.skip)('two instances of one database deliver each event once', async () => {
  const name = `aw_hooks_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  const admin = await openDb({ databaseUrl: pgUrl! });
  await admin.query(`CREATE DATABASE ${name}`);
  const env = {
    DATABASE_URL: pgUrl!.replace(/\/[^/]*$/, `/${name}`), WEBHOOK_ALLOW_PRIVATE: '1', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password,
  };
  const rx = await startReceiver(() => ({ status: 200, delayMs: 20 }));
  const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'aw-webhooks-fleet-')));
  const servers: Awaited<ReturnType<typeof spawnServer>>[] = [];
  try {
    servers.push(await spawnServer({ ...env, DATA_DIR: dirs[0] }));
    servers.push(await spawnServer({ ...env, DATA_DIR: dirs[1] }));
    const tokens = await Promise.all(servers.map((s) => signIn(s.url)));
    const hook = await ok(servers[0].url, '/api/webhooks', { token: tokens[0], body: { url: rx.url('/fleet'), events: ['run.started'] } });
    // Both instances are woken for every event (NOTIFY) and race for it.
    const events = 40;
    const queued = await Promise.all(Array.from({ length: events }, (_, i) =>
      ok(servers[i % 2].url, `/api/webhooks/${hook.id}/test`, { token: tokens[i % 2], body: {} })));
    await until(async () => {
      const log = await api(servers[1].url, `/api/webhooks/${hook.id}/deliveries?limit=200`, { token: tokens[1] });
      return log.body.deliveries.filter((d: any) => d.status === 'delivered').length === events;
    }, 30_000, 'every delivery delivered');
    const ids = rx.got.map((r) => r.headers['webhook-id']);
    assert.is(ids.length, events, 'no event twice');
    assert.equal(new Set(ids), new Set(queued.map((d) => d.event_id)));
    for (const r of rx.got) rx.verify(r, hook.secret);
  } finally {
    for (const s of servers) await stop(s).catch(() => s.child.kill('SIGKILL'));
    await rx.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.close();
  }
});

restart.run();
