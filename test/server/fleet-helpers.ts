// Two real server processes on one PostgreSQL database of their own (separate ports and DATA_DIRs), both with
// real, contained Xvnc desktops: the fleet tests' setup. Also the calls they make and what they look at on
// this machine (an agent's Xvnc processes, the files in a desktop's home).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { loadDesktopConfig } from '../../server/config/index.ts';
import { openDb, type Db } from '../../server/db/db.ts';
import { decodeOwnPng } from '../../server/desktop/rfb/png.ts';
import { HomeImages } from '../../server/desktop/contain/home-image.ts';
import { spawnServer, until } from './fault-helpers.ts';
import { GuacTestClient } from './desktop-helpers.ts';
import { ADMIN, testEnv } from './helpers.ts';

export const SECRET = 'fleet-test-secret-0123456789abcdef0123456789';
export const STALE_SECONDS = 8;
export const HAVE_XVNC = ['/usr/bin/Xvnc', '/usr/local/bin/Xvnc'].some((p) => existsSync(p));

export type Instance = Awaited<ReturnType<typeof spawnServer>> & { name: string; dataDir: string; env: Record<string, string>; uidBase: number };
export type Fleet = {
  a: Instance;
  b: Instance;
  db: Db;
  /** One more instance on the same database (its own port and DATA_DIR), e.g. a web tier with DESKTOP_HOST=0. */
  spawn: (label: string, displayBase: number, uidOffset: number, env?: Record<string, string>) => Promise<Instance>;
  /** Starts B, when startFleet left it for later (`{ b: false }`: what A does alone is A's). */
  startB: () => Promise<Instance>;
  close: () => Promise<void>;
};

/** Why the fleet cannot be tested here, or null when it can. */
export async function fleetUnavailable(): Promise<string | null> {
  if (!HAVE_XVNC) return 'Xvnc is not installed (Debian package tigervnc-standalone-server)';
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return 'TEST_DATABASE_URL is not set: the fleet needs PostgreSQL';
  // A short connect timeout: an address that drops packets must not stall the run.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return `PostgreSQL at TEST_DATABASE_URL is unreachable (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Two instances on a fresh database of the test PostgreSQL; A starts first (it runs the migrations). */
export async function startFleet(extra: Record<string, string> = {}, options: { b?: boolean } = {}): Promise<Fleet> {
  const pgUrl = process.env.TEST_DATABASE_URL!;
  const name = `aw_fleet_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  const admin = await openDb({ databaseUrl: pgUrl });
  await admin.query(`CREATE DATABASE ${name}`);
  const url = pgUrl.replace(/\/[^/]*$/, `/${name}`);
  const db = await openDb({ databaseUrl: url });
  const common = {
    ...(testEnv() as Record<string, string>),
    DATABASE_URL: url, INTERNAL_SECRET: SECRET, DESKTOP_PROVIDER: 'xvnc', DESKTOP_APPS: 'terminal',
    DESKTOP_LEASE_STALE_SECONDS: String(STALE_SECONDS), ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, MODEL_PROVIDER: 'offline',
    ...extra,
  };
  const started: Instance[] = [];
  // Instances on one machine get agent uid ranges of their own (inside this test process's): stopping a desktop
  // ends every process of its uid, which must never reach another instance's copy of the same agent.
  const spawn = async (label: string, displayBase: number, uidOffset: number, more: Record<string, string> = {}) => {
    const dataDir = mkdtempSync(join(tmpdir(), `aw-fleet-${label}-`));
    const uidBase = loadDesktopConfig(testEnv()).uidBase + uidOffset; // run.mjs's range, or the default (bench)
    const env = { ...common, DATA_DIR: dataDir, DESKTOP_DISPLAY_BASE: String(displayBase), AGENT_UID_BASE: String(uidBase), ...more };
    const server = await spawnServer(env);
    const instance = { ...server, name: label, dataDir, env, uidBase };
    started.push(instance);
    return instance;
  };
  const close = async () => {
    for (const s of started) {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGTERM');
      await until(() => s.child.exitCode !== null || s.child.signalCode !== null, 15_000, `${s.name} to stop`).catch(() => s.child.kill('SIGKILL'));
      HomeImages.unmountUnder(s.dataDir); // what a server killed with -9 left mounted
      rmSync(s.dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    }
    await db.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.close();
  };
  try {
    // Not offset 0: that base is this test process's own (its in-process servers hold it, and a server claims its base).
    const a = await spawn('a', 300, 750);
    const fleet: Fleet = { a, b: undefined as unknown as Instance, db, spawn, close, startB: async () => (fleet.b = await spawn('b', 400, 500)) };
    if (options.b !== false) await fleet.startB();
    return fleet;
  } catch (err) {
    await close();
    throw err;
  }
}

export type Reply = { status: number; body: any };

export async function api(base: string, path: string, init: { token?: string; body?: unknown; method?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(base + path, {
    method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'), headers, body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const type = res.headers.get('content-type') ?? '';
  const body = type.includes('json') ? await res.json() : Buffer.from(await res.arrayBuffer());
  return { status: res.status, body };
}

export async function ok(base: string, path: string, init: Parameters<typeof api>[2] = {}): Promise<any> {
  const res = await api(base, path, init);
  if (res.status >= 300) throw new Error(`${init.method ?? 'call'} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A viewer of the agent's desktop through `base`'s gateway, once its first frame arrived. */
export async function view(base: string, token: string, agentId: number): Promise<{ viewer: GuacTestClient; sessionId: string }> {
  const entered = await ok(base, '/api/agents/enter', { token, body: { agent_id: agentId } });
  const viewer = await GuacTestClient.connect(base.replace(/^http/, 'ws') + entered.guacamole_tunnel_url);
  await viewer.until(() => viewer.frames > 0, 30_000, 'the first frame');
  return { viewer, sessionId: entered.session_id };
}

/**
 * One turn of the agent's thread through `base` (a new thread when `thread` is null), run by the offline model until
 * it answers; resolves with the thread's id. The instance that runs it is whichever claims it.
 */
export async function agentTurn(base: string, token: string, agentId: number, thread: number | null, text: string): Promise<number> {
  const id = thread ?? (await ok(base, `/api/threads/${agentId}/create-new-thread`, { token, body: { user_text: text } })).id;
  if (thread !== null) await ok(base, `/api/threads/${thread}/set-user-input-and-schedule`, { token, body: { user_text: text } });
  await ok(base, `/api/agents/${agentId}/run-state`, { token, body: { state: 'run' } });
  const steps = async (): Promise<any[]> => (await ok(base, `/api/threads/${id}/steps`, { token })).steps ?? [];
  const asked = (await steps()).filter((s) => s.user_text).length; // this turn's included
  await until(async () => {
    const t = await ok(base, `/api/threads/${id}`, { token });
    const all = await steps();
    const answered = all.filter((s) => s.user_text).length === asked && !!all[all.length - 1]?.assistant_text;
    return !t.thread_running && t.schedule_sequence === null && answered ? true : null;
  }, 120_000, `the agent's answer to "${text}"`, 250);
  return id;
}

/** The live screenshot of the agent's desktop through `base`, decoded. */
export async function screenshot(base: string, token: string, agentId: number): Promise<{ png: Buffer; data: Buffer }> {
  const res = await api(base, `/api/agents/${agentId}/screenshot`, { token });
  if (res.status !== 200) throw new Error(`screenshot through ${base}: ${res.status} ${JSON.stringify(res.body)}`);
  return { png: res.body, data: decodeOwnPng(res.body).data };
}

/** Pids of the Xvnc processes of the agent on any of the instances (each runs it as its own uid for the agent). */
export function xvncOf(instances: Instance[], agentId: number): number[] {
  return instances.flatMap((i) => xvncOfUid(i.uidBase + agentId));
}

/** Pids of the Xvnc processes running as uid `uid` on this machine (an agent's desktop runs as its own user). */
export function xvncOfUid(uid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const name = /^Name:\s*(\S+)/m.exec(status)?.[1];
      const real = Number(/^Uid:\s*(\d+)/m.exec(status)?.[1]);
      if (name === 'Xvnc' && real === uid) out.push(Number(entry));
    } catch {}
  }
  return out;
}

/** A file in the agent's desktop home on that instance, once it has content. */
export function homeFile(instance: Instance, agentId: number, name: string): string | null {
  try {
    const text = readFileSync(join(instance.dataDir, 'desktops', `agent-${agentId}`, name), 'utf8');
    return text || null;
  } catch {
    return null;
  }
}

/** The HTTP status a WebSocket upgrade gets (101 when it opens). */
export function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('open', () => {
      resolve(101);
      ws.close();
    });
    ws.once('error', () => resolve(-1));
  });
}

export { until };
