// One real server per test process, on port 0, over PGlite in memory or — when
// TEST_DATABASE_URL is set — a throwaway schema in PostgreSQL that is dropped afterwards.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../server/config/index.ts';
import { openDb, type Db } from '../../server/db/db.ts';
import { createUser } from '../../server/auth/users.ts';
import { start, type Running } from '../../server/start.ts';
import { fakeResolve } from './fake-dns.ts';
import { startS3Server, type S3Server } from './s3-helpers.ts';

/**
 * What a test server takes from this process's environment: the agent uid range run.mjs gave this test
 * process (its desktops must not end another process's) and PATH (where the desktop programs are).
 */
/**
 * One SECRETS_KEY for every server this process starts: the audit chain's key is the process's (one server per
 * process in production), and servers sharing a database must share the key that seals its secrets.
 */
const PROCESS_SECRETS_KEY = randomBytes(32).toString('base64');
/** Likewise the vault's key (issue 45): every server of one database needs the same. */
const PROCESS_VAULT_KEY = randomBytes(32).toString('base64');

export function testEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { AGENT_UID_BASE: process.env.AGENT_UID_BASE, PATH: process.env.PATH, SECRETS_KEY: PROCESS_SECRETS_KEY, VAULT_KEY: PROCESS_VAULT_KEY, ...env };
}

export const ADMIN = { email: 'admin@test.local', password: 'admin-password-123' };
const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };

let running: Promise<Running> | null = null;
/** The S3 stand-in the test server keeps its blobs in (TEST_STORAGE=s3), for tests that make it fail; else null. */
export let testS3: S3Server | null = null;

export function testServer(): Promise<Running> {
  return (running ??= boot());
}

async function boot(): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-test-data-'));
  const url = process.env.TEST_DATABASE_URL;
  let db: Db;
  let dropSchema = async () => {};
  if (url) {
    const schema = `test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const admin = await openDb({ databaseUrl: url });
    await admin.query(`CREATE SCHEMA ${schema}`);
    db = await openDb({ databaseUrl: url, schema });
    dropSchema = async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.close();
    };
  } else {
    db = await openDb({ dataDir: null });
  }
  const config = {
    ...loadConfig(testEnv()),
    // Its own data directory: files of earlier runs (same agent ids, other engines) must not show up here.
    dataDir,
    port: 0,
    smtpPort: 0, // several test processes run at once: never the fixed 2525
    mailMaxBytes: 1024 * 1024, // the 552 test need not push 25 MB through
    adminEmail: ADMIN.email,
    adminPassword: ADMIN.password,
    staticDir: null,
    logRequests: false,
    // TEST_STORAGE=s3 (scripts/test.mjs sets it for the file tests' second pass): blobs go to a local S3 stand-in.
    storage: process.env.TEST_STORAGE === 's3' ? (testS3 = await startS3Server()).config('test-files', 'aw') : null,
  };
  const r = await start(config, db, quiet);
  if (r.parts.smtp) r.parts.smtp.resolver = fakeResolve; // the sender checks ask test/server/fake-dns.ts, never the internet
  (globalThis as any).__teardown?.push(async () => {
    await r.close();
    await db.close();
    await dropSchema();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });
  return r;
}

/** The bytes the server's blob store keeps under `key` (either kind of store), or null. */
export async function storedBytes(key: string): Promise<Buffer | null> {
  const read = await (await testServer()).parts.blobs.get(key);
  if (!read) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of read.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The keys the server's blob store lists under `prefix`. */
export async function storedKeys(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const { key } of (await testServer()).parts.blobs.list(prefix)) keys.push(key);
  return keys;
}

export type Reply<T = any> = { status: number; body: T; headers: Headers };

export async function call<T = any>(
  path: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string>; raw?: BodyInit } = {},
): Promise<Reply<T>> {
  const { url } = await testServer();
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  let body: BodyInit | undefined = init.raw;
  if (init.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = JSON.stringify(init.body);
  }
  const res = await fetch(url + path, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers };
}

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${Date.now().toString(36)}-${++counter}@example.test`;
}

/** Signs up a fresh user and returns its token and id. */
/**
 * A new account, signed in. Made in the database, not through sign-up: the suite makes more accounts from
 * 127.0.0.1 than sign-up allows one address an hour (auth tests cover sign-up itself).
 */
export async function newUser(prefix = 'user'): Promise<{ token: string; id: number; email: string; cookie: string }> {
  const email = uniqueEmail(prefix);
  const password = 'correct horse battery';
  await createUser((await testServer()).parts.db, email, password);
  const res = await call('/api/auth/sign-in', { body: { email, password } });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  const me = await call('/api/users/me', { token: res.body.token });
  return { token: res.body.token, id: me.body.id, email, cookie: res.headers.get('set-cookie') ?? '' };
}

export async function adminToken(): Promise<string> {
  const res = await call('/api/auth/sign-in', { body: ADMIN });
  if (res.status !== 200) throw new Error(`admin sign-in failed: ${res.status}`);
  return res.body.token;
}

/** Creates an agent owned by `ownerId` through the admin API (impersonating that owner). */
export async function newAgent(ownerId: number, name = 'Agent ' + ++counter): Promise<any> {
  const res = await call('/api/agents/', { token: await adminToken(), headers: { 'X-Impersonate-User-Id': String(ownerId) }, body: { name } });
  if (res.status !== 201) throw new Error(`agent create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Opens a WebSocket and collects its JSON frames. */
export async function openSocket(path: string, protocols?: string | string[]) {
  const { url } = await testServer();
  const { WebSocket } = await import('ws');
  const ws = new WebSocket(path.startsWith('ws') ? path : url.replace('http', 'ws') + path, protocols);
  const frames: any[] = [];
  const waiters: (() => void)[] = [];
  let closed: { code: number; reason: string } | null = null;
  ws.on('message', (data) => {
    frames.push(JSON.parse(data.toString()));
    waiters.splice(0).forEach((w) => w());
  });
  ws.on('close', (code, reason) => {
    closed = { code, reason: reason.toString() };
    waiters.splice(0).forEach((w) => w());
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    frames,
    get closed() {
      return closed;
    },
    /** Resolves with the first frame matching `test`, or rejects after `ms`. */
    async next(test: (f: any) => boolean = () => true, ms = 3000): Promise<any> {
      const deadline = Date.now() + ms;
      for (;;) {
        const hit = frames.find(test);
        if (hit) return hit;
        if (closed || Date.now() > deadline) {
          throw new Error(`no matching frame (closed: ${JSON.stringify(closed)}, frames: ${JSON.stringify(frames).slice(0, 500)})`);
        }
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
    },
    async closedWith(ms = 3000) {
      const deadline = Date.now() + ms;
      while (!closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return closed;
    },
  };
}
