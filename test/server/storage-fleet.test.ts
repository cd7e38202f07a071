import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../server/db/db.ts';
import { spawnServer, until } from './fault-helpers.ts';
import { ADMIN } from './helpers.ts';
import { startS3Server } from './s3-helpers.ts';
import { fleetUnavailable, ok, startFleet, view, type Fleet } from './fleet-helpers.ts';

// Two server processes on one PostgreSQL database of their own and one bucket: what one stores, the other has.
const storageFleet = suite('S3 storage shared by two instances');
const test = process.env.TEST_DATABASE_URL ? storageFleet : storageFleet.skip;

type Server = Awaited<ReturnType<typeof spawnServer>> & { dataDir: string };
const ctx: { a?: Server; b?: Server; close: (() => Promise<void>)[] } = { close: [] };

async function start(env: Record<string, string>): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-s3-fleet-'));
  ctx.close.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const server = await spawnServer({ ...env, DATA_DIR: dataDir });
  ctx.close.push(async () => {
    server.child.kill('SIGTERM');
    const stopped = () => server.child.exitCode !== null || server.child.signalCode !== null;
    await until(stopped, 15_000, 'the server to stop').catch(() => server.child.kill('SIGKILL'));
  });
  return { ...server, dataDir };
}

async function call(base: string, path: string, token: string, init: { method?: string; body?: unknown; form?: FormData } = {}) {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(base + path, {
    method: init.method ?? (init.body !== undefined || init.form ? 'POST' : 'GET'), headers,
    body: init.form ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

const s3 = await startS3Server();
let env: Record<string, string> = {};

storageFleet.before(async () => {
  if (!process.env.TEST_DATABASE_URL) return;
  const pgUrl = process.env.TEST_DATABASE_URL;
  const name = `aw_s3_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  const admin = await openDb({ databaseUrl: pgUrl });
  await admin.query(`CREATE DATABASE ${name}`);
  ctx.close.push(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.close();
  });
  const { endpoint, accessKeyId, secretAccessKey } = s3.config('fleet-files');
  env = {
    DATABASE_URL: pgUrl.replace(/\/[^/]*$/, `/${name}`), ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password,
    STORAGE_URL: 's3://fleet-files/aw', S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: '1', AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey,
  };
  ctx.a = await start(env);
  ctx.b = await start(env);
});

storageFleet.after(async () => {
  for (const close of ctx.close.reverse()) await close();
});

const signIn = async (base: string) => (await (await fetch(`${base}/api/auth/sign-in`, {
  method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN),
})).json()).token as string;

test('an upload on A is in the bucket, counts against the quota on B, and B deleting the agent deletes it', async () => {
  const a = ctx.a!.url;
  const b = ctx.b!.url;
  const [tokenA, tokenB] = [await signIn(a), await signIn(b)];
  const agent = (await call(a, '/api/agents/', tokenA, { body: { name: 'Shared files' } })).body;
  const form = new FormData();
  const content = Buffer.from('bytes kept once for the whole fleet '.repeat(100));
  form.append('file', new Blob([new Uint8Array(content)]), 'shared.txt');
  const uploaded = await call(a, `/api/agents/${agent.id}/upload_file`, tokenA, { form });
  assert.is(uploaded.status, 200, JSON.stringify(uploaded.body));
  const key = `aw/${uploaded.body.file_path}`;
  assert.ok(s3.buckets.get('fleet-files')!.get(key)?.body.equals(content), 'the object is in the bucket');
  assert.not.ok(existsSync(join(ctx.a!.dataDir, 'files', uploaded.body.file_path)), 'not on the disk of A');
  // B sees the agent's file as A stored it, and deletes it with the agent: nothing of it is left anywhere.
  assert.is((await call(b, `/api/agents/${agent.id}`, tokenB)).body.file_path, uploaded.body.file_path);
  assert.is((await call(b, `/api/agents/${agent.id}`, tokenB, { method: 'DELETE' })).status, 204);
  assert.equal([...s3.buckets.get('fleet-files')!.keys()].filter((k) => k.startsWith(`aw/agent-${agent.id}/`)), []);
});

test('a bucket that refuses the credentials stops a third instance with one line naming STORAGE_URL', async () => {
  try {
    await start({ ...env, AWS_SECRET_ACCESS_KEY: 'not-the-secret' });
    assert.unreachable('the server should not start');
  } catch (err) {
    const line = /Agent Workspace cannot start: STORAGE_URL=s3:\/\/fleet-files\/aw\/ cannot be used \(403 SignatureDoesNotMatch/;
    assert.match((err as Error).message, /^server exited 1: /);
    assert.match((err as Error).message, line);
  }
});

storageFleet.run();

// The same with desktops (Xvnc): a run's recording is written on the instance that runs it, then kept in the bucket.
const desktopFleet = suite('S3 storage shared by two instances with desktops');
const unavailable = await fleetUnavailable();
const withDesktops = unavailable ? desktopFleet.skip : desktopFleet;
const d = {} as { f: Fleet | null };

desktopFleet.before(async () => {
  if (unavailable) return void console.log(`\n    SKIPPED: ${unavailable}; the run replayed from the bucket was not tested.`);
  const { endpoint, accessKeyId, secretAccessKey } = s3.config('fleet-runs');
  d.f = await startFleet({
    STORAGE_URL: 's3://fleet-runs/aw', S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: '1', AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey,
  });
});

desktopFleet.after(async () => {
  await d.f?.close();
  await s3.close();
});

withDesktops('a run recorded on A is played through B from the bucket, with A stopped', async () => {
  const { a, b, db } = d.f!;
  const token = (await ok(a.url, '/api/auth/sign-in', { body: ADMIN })).token;
  const agent = (await ok(a.url, '/api/agents/', { token, body: { name: 'Recorded in the bucket' } })).id;
  (await view(a.url, token, agent)).viewer.close(); // A holds the desktop
  const thread = await ok(a.url, `/api/threads/${agent}/create-new-thread`, {
    token, body: { user_text: 'open a terminal, type "echo kept > kept.txt" and press enter' },
  });
  await ok(a.url, `/api/agents/${agent}/run-state`, { token, body: { state: 'run_all' } });
  const run = await until(async () => (await db.query<{ id: number; instance_id: string; recording_path: string }>(
    'SELECT id, instance_id, recording_path FROM runs WHERE thread_id = $1 AND recording_done', [thread.id]))[0], 90_000, 'the run to be recorded', 200);
  const [holder, other] = run.instance_id.includes(`:${a.child.pid}:`) ? [a, b] : [b, a];
  const stored = s3.buckets.get('fleet-runs')!.get(`aw/${run.recording_path}`);
  assert.ok(stored && stored.body.length > 0, 'the recording is in the bucket');
  assert.not.ok(existsSync(join(holder.dataDir, 'files', run.recording_path)), 'and no longer on the disk of the instance that ran it');
  const get = (base: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/api/runs/${run.id}/recording`, { headers: { Authorization: `Bearer ${token}`, ...headers } });
  const recording = await (await get(holder.url)).text();
  assert.ok(recording.startsWith('4.size,'), 'a Guacamole recording');

  // The instance that ran it stops: the other serves the recording on its own, from the bucket.
  holder.child.kill('SIGTERM');
  await until(() => holder.child.exitCode !== null || holder.child.signalCode !== null, 15_000, 'the holder to stop');
  const there = await get(other.url);
  assert.is(there.status, 200);
  assert.is(there.headers.get('content-encoding'), 'gzip');
  assert.is(await there.text(), recording, 'the same recording');
  const part = await get(other.url, { Range: 'bytes=0-19', 'Accept-Encoding': 'identity' });
  assert.is(part.status, 206);
  assert.is(await part.text(), recording.slice(0, 20));
});

desktopFleet.run();
