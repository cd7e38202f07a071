// One small query interface over two engines that speak the same SQL: embedded PGlite
// (default, in $DATA_DIR/pg) and a real PostgreSQL pool when DATABASE_URL is set.
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { batched } from './batch.ts';
import { openSnapshotLine, type SnapshotLine } from './snapshot-line.ts';
import type { Db, Queryable, Row, Sql, Statement } from './types.ts';

export type { Db, Queryable, Row, Sql, Statement };

const statementNames = new Set<string>();
/** Names a fixed SQL text so both engines parse and plan it once per connection, not per call. */
export function prepared(name: string, text: string): Statement {
  if (statementNames.has(name)) throw new Error(`duplicate statement name ${name}`);
  statementNames.add(name);
  return { name, text };
}
const SNAPSHOT = prepared('db.snapshot', 'SELECT pg_current_snapshot()::text AS s');
/** The snapshot line's application_name (pg_stat_activity shows whose it is). */
export const SNAPSHOT_LINE_NAME = `agent-workspace snapshot ${process.pid}`;

export type DbOptions = { dataDir?: string | null; databaseUrl?: string | null; schema?: string };

export async function openDb(options: DbOptions): Promise<Db> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options.schema) : openPglite(options.dataDir ?? null);
}

async function openPglite(dataDir: string | null): Promise<Db> {
  let path: string | null = null;
  if (dataDir) {
    path = join(dataDir, 'pg');
    mkdirSync(path, { recursive: true, mode: 0o700 });
    chmodSync(path, 0o700); // the signing keys are in here: also for data directories made before
    const { initInChild, needsInit } = await import('./pglite-init.ts');
    if (needsInit(path)) await initInChild(path);
  }
  // In a worker thread: its SQL no longer holds up this thread's requests, sockets and timers.
  const { openPgliteWorker } = await import('./pglite-remote.ts');
  return openPgliteWorker(path);
}

async function openPostgres(url: string, schema?: string): Promise<Db> {
  const { default: pg } = await import('pg');
  // timestamptz as Date and int4 as number already; keep int8 (counts) as numbers too.
  pg.types.setTypeParser(20, (v: string) => Number(v));
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  pool.on('error', (err: Error) => console.error('postgres pool error:', err.message));
  const query = async <T extends Row>(sql: Sql, params?: unknown[]) =>
    (await (typeof sql === 'string' ? pool.query(sql, params as any[]) : pool.query({ name: sql.name, text: sql.text, values: params as any[] }))).rows as T[];
  let closed = false;
  // Two snapshots with the same text see the same committed transactions, so the same data (xids are
  // the cluster's: a write anywhere moves it on). Callers that arrive while one is read share the next.
  // Read on a line of their own (snapshot-line.ts); through the pool while that line is down.
  let line: Promise<SnapshotLine> | null = null;
  let lineRetryAt = 0;
  const readSnapshot = async (): Promise<string> => {
    if (!line && !closed && Date.now() >= lineRetryAt) line = openSnapshotLine(new pg.Client({ connectionString: url, application_name: SNAPSHOT_LINE_NAME }));
    try {
      if (line) return await (await line).read();
    } catch {
      line = null;
      lineRetryAt = Date.now() + 1000;
    }
    return (await query<{ s: string }>(SNAPSHOT))[0].s;
  };
  const snapshot = batched<0, string>(async () => new Map([[0, await readSnapshot()]]));
  const listeners = new Set<InstanceType<typeof pg.Client>>();
  // A LISTEN connection that PostgreSQL drops (restart, failover) is opened again, with backoff, for as
  // long as the pool lives; without that, other instances' events would stop arriving for good.
  const listen = async (channel: string, onPayload: (payload: string) => void, retryMs = 250): Promise<void> => {
    const client = new pg.Client({ connectionString: url });
    let lost = false;
    const reconnect = (err?: Error) => {
      if (lost || closed) return;
      lost = true;
      listeners.delete(client);
      client.end().catch(() => {});
      if (err) console.error('postgres listener lost:', err.message);
      const again = () => listen(channel, onPayload).catch(() => {
        if (!closed) setTimeout(again, retryMs = Math.min(retryMs * 2, 5000)).unref();
      });
      setTimeout(again, retryMs).unref();
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect());
    client.on('notification', (m: { payload?: string }) => m.payload && onPayload(m.payload));
    listeners.add(client);
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      if (lost) return; // its 'end' came first and already scheduled the next attempt
      lost = true;
      listeners.delete(client);
      client.end().catch(() => {});
      throw err;
    }
  };
  return withOne({
    engine: 'postgres',
    listen: (channel, onPayload) => listen(channel, onPayload),
    query,
    version: () => snapshot(0) as Promise<string>,
    tx: async (fn) => {
      let broken: Error | undefined;
      const onError = (err: Error) => (broken = err);
      const client = await checkout(pool, onError);
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: async <T extends Row>(s: Sql, p?: unknown[]) =>
            (await (typeof s === 'string' ? client.query(s, p as any[]) : client.query({ name: s.name, text: s.text, values: p as any[] }))).rows as T[],
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.off('error', onError);
        client.release(broken); // a broken connection is dropped, not handed to the next caller
      }
    },
    close: async () => {
      closed = true;
      line?.then((l) => l.close(), () => {});
      await Promise.all([...listeners].map((c) => c.end().catch(() => {})));
      await pool.end();
    },
  });
}

type PoolClient = { on(event: 'error', f: (err: Error) => void): unknown };
type Pool<C> = { connect(cb: (err: Error | undefined, client?: C) => void): void };

/**
 * A pool client with `onError` on it from the moment the pool hands it over. A checked-out client has no
 * listener of the pool's, and an 'error' event without one takes the process down (a connection PostgreSQL
 * ends: a restart). The pool hands a client to a waiting caller inside another's release, which a query's
 * answer triggers while pg is still reading that connection's bytes: when PostgreSQL's "terminating
 * connection" came in the same read, the error was emitted before an `await pool.connect()` resumed (a
 * restart under load took a CI run's server down).
 */
export function checkout<C extends PoolClient>(pool: Pool<C>, onError: (err: Error) => void): Promise<C> {
  return new Promise((resolve, reject) =>
    pool.connect((err, client) => {
      if (err || !client) return reject(err ?? new Error('no client from the pool'));
      client.on('error', onError);
      resolve(client);
    }));
}

function withOne(db: Omit<Db, 'one'>): Db {
  return { ...db, one: async (sql, params) => (await db.query(sql, params))[0] ?? null } as Db;
}
