// The Db of the embedded database that runs in a worker thread (pglite-worker.ts): each call is a message,
// answered with its rows or its error (with PostgreSQL's fields, code and all, as PGlite gives them). A
// transaction is a series of messages the worker runs inside one PGlite transaction; statements outside it wait
// for its end there, as they did in this thread.
import { Worker } from 'node:worker_threads';
import { mayWrite } from './read-cache.ts';
import type { Db, Row, Sql } from './types.ts';

type Answer = { id: number; rows?: Row[]; error?: Record<string, unknown> & { message: string } };

/**
 * The worker's script and options: built, its sibling in dist/. Unbuilt (tests, benches), the TypeScript beside
 * this file, which runs through test/setup's loader like the rest: a loader registered at run time
 * (module.register, as the bench scripts do) does not reach workers, so it is named on their command line.
 */
function workerScript(): { url: URL; execArgv?: string[] } {
  if (!import.meta.url.endsWith('.ts')) return { url: new URL('./pglite-worker.mjs', import.meta.url) };
  const loader = new URL('../../test/setup/register.mjs', import.meta.url).href;
  const named = process.execArgv.some((a) => a.includes('register.mjs'));
  return { url: new URL('./pglite-worker.ts', import.meta.url), ...(named ? {} : { execArgv: ['--import', loader] }) };
}

export async function openPgliteWorker(path: string | null): Promise<Db> {
  const { url, execArgv } = workerScript();
  const worker = new Worker(url, { workerData: { path }, execArgv });
  const waiting = new Map<number, { resolve: (rows: Row[]) => void; reject: (err: Error) => void }>();
  let next = 1;
  let failed: Error | null = null;
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (m) => (m?.ready ? resolve() : reject(new Error('the database worker did not start'))));
  });
  // The worker keeps this process alive only while a call waits for it (an idle database holds nothing up).
  worker.unref();
  worker.on('message', (m: Answer) => {
    const call = waiting.get(m.id);
    if (!call) return;
    waiting.delete(m.id);
    if (!waiting.size) worker.unref();
    if (!m.error) return call.resolve(m.rows ?? []);
    call.reject(Object.assign(new Error(m.error.message), m.error));
  });
  // A worker that dies fails every call waiting and every later one, with its reason.
  const die = (err: Error) => {
    failed = err;
    for (const call of waiting.values()) call.reject(err);
    waiting.clear();
  };
  worker.on('error', die);
  worker.on('exit', (code) => die(new Error(`the database worker stopped (${code})`)));

  const send = <T extends Row>(message: Record<string, unknown>): Promise<T[]> => {
    if (failed) return Promise.reject(failed);
    const id = next++;
    return new Promise<T[]>((resolve, reject) => {
      if (!waiting.size) worker.ref();
      waiting.set(id, { resolve: resolve as (rows: Row[]) => void, reject });
      worker.postMessage({ ...message, id });
    });
  };

  // Counted when a write has finished (committed or not): see read-cache.ts for why that order is safe.
  let writes = 0;
  const query = async <T extends Row>(sql: Sql, params?: unknown[]) => {
    if (!mayWrite(typeof sql === 'string' ? sql : sql.text)) return send<T>({ op: 'query', sql, params });
    try {
      return await send<T>({ op: 'query', sql, params });
    } finally {
      writes++;
    }
  };
  let txs = 0;
  return {
    engine: 'pglite',
    query,
    one: async (sql, params) => (await query(sql, params))[0] ?? null,
    tx: async (fn) => {
      const tx = ++txs;
      await send({ op: 'begin', tx });
      try {
        const result = await fn({ query: (sql, params) => send({ op: 'query', sql, params, tx }) });
        await send({ op: 'commit', tx });
        return result;
      } catch (err) {
        await send({ op: 'rollback', tx }).catch(() => {});
        throw err;
      } finally {
        writes++;
      }
    },
    version: () => writes,
    close: async () => {
      await send({ op: 'close' }).catch(() => {});
      await worker.terminate();
    },
  } as Db;
}
