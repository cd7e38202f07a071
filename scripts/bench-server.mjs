// What the server benchmarks share: the PostgreSQL they may use, a real server on port 0 over PGlite
// (memory) or a throwaway PostgreSQL schema, and a JSON API call. Importers register the TypeScript
// loader first (test/setup/ts-loader.mjs).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { loadConfig } = await import('../server/config/index.ts');
const { openDb } = await import('../server/db/db.ts');
const { start } = await import('../server/start.ts');

export const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const ADMIN = { email: 'bench-admin@example.test', password: 'bench-password-123' };
const quiet = { info: () => {}, error: (m) => console.error(m) };

export async function pgAvailable() {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A PostgreSQL schema of its own at PG_URL, and `drop` to close its pool and remove it with everything in it. */
export async function throwawaySchema() {
  const schema = `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = await openDb({ databaseUrl: PG_URL });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const db = await openDb({ databaseUrl: PG_URL, schema });
  const drop = async () => {
    await db.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.close();
  };
  return { db, drop };
}

/**
 * A server on port 0 (SMTP too) over `engine` ('pglite' | 'postgres'), with `config` on top of the defaults
 * read from this process's environment and `env`; `wrapDb` may wrap the database the server is given (the soak times it).
 */
export async function bootServer(engine, name, config = {}, env = {}, wrapDb = (db) => db) {
  const { db, drop } = engine === 'postgres' ? await throwawaySchema() : await inMemory();
  const dataDir = mkdtempSync(join(tmpdir(), `aw-bench-${name}-`));
  const running = await start({
    ...loadConfig({ ...process.env, ...env }), dataDir, port: 0, smtpPort: 0, adminEmail: ADMIN.email, adminPassword: ADMIN.password,
    staticDir: null, logRequests: false, ...config,
  }, wrapDb(db), quiet);
  return {
    running, db,
    close: async () => {
      await running.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }); // Chromium's helpers outlive it briefly
    },
  };
}

export async function api(base, path, init = {}) {
  const res = await fetch(base + path, {
    method: init.method ?? (init.body ? 'POST' : 'GET'),
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...init.headers },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${path}: ${text}`);
  return text ? JSON.parse(text) : null;
}

async function inMemory() {
  const db = await openDb({ dataDir: null });
  return { db, drop: () => db.close() };
}
