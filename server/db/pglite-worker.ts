// The embedded database in a worker thread of its own (issue 43): PGlite runs its SQL synchronously in
// WebAssembly, so on the server's main thread every statement held up every request, socket and timer
// behind it. Here it runs beside them; pglite-remote.ts is the Db the rest of the server talks to.
// Messages in: {id, op: 'query', sql: string | Statement, params, tx?} | {id, op: 'begin' | 'commit' |
// 'rollback', tx} | {id, op: 'close'}. Out: {id, rows} | {id, error: {message, ...fields}}.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { preparedQuery } from './pglite-prepared.ts';
import type { Sql } from './types.ts';

type Query = { id: number; op: 'query'; sql: Sql; params?: unknown[]; tx?: number };
type Begin = { id: number; op: 'begin'; tx: number };
type End = { id: number; op: 'commit' | 'rollback'; tx: number };
type In = Query | Begin | End | { id: number; op: 'close' };

/**
 * PostgreSQL's shared memory lives in PGlite's WebAssembly heap, which PGlite fills in whole at start and never gives
 * back. initdb's shared_buffers of 128 MB made that 145 MB of this process's idle RSS; at 32 MB it is 42 MB, and the
 * WebAssembly heap holds 49 MB instead of 154 MB (issue 48, scripts/bench-memory.mjs). Pages beyond it come from the
 * OS's file cache. Over a 128 MB table read at random, point reads ran at ~2,200/s against ~2,800/s with 128 MB,
 * 500-row pages scattered over the whole table at a third of the rate, and writes were no slower. Set on the command
 * line, so postgresql.conf keeps initdb's value, and PGlite's own settings (fsync and the rest) stay as they are.
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

const port = parentPort!;
// One options object: PGlite ignores the second argument when the first (the path) is undefined, in memory.
const pg = new PGlite({ dataDir: workerData.path ?? undefined, startParams: START_PARAMS });
await pg.waitReady;
const run = preparedQuery(pg);

/** The messages for each open transaction, taken in order by the transaction's own loop. */
const inbox = new Map<number, { queue: (Query | End)[]; wake: (() => void) | null }>();

const reply = (id: number, rows: unknown) => port.postMessage({ id, rows });
const fail = (id: number, err: unknown) => {
  // Structured clone keeps an Error's message and stack, not PostgreSQL's fields (code, detail …): sent as data.
  const e = err as Record<string, unknown> & Error;
  const fields = Object.entries(e).filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v));
  port.postMessage({ id, error: { ...Object.fromEntries(fields), message: String(e?.message ?? err), name: e?.name ?? 'Error' } });
};

async function query(sql: Sql, params?: unknown[]) {
  return typeof sql === 'string' ? (await pg.query(sql, params as any[])).rows : run(sql, params ?? []);
}

class Rollback extends Error {}

/** One transaction: the statements sent for it, in order, until commit or rollback. */
function transaction(begin: Begin): void {
  const box = { queue: [] as (Query | End)[], wake: null as (() => void) | null };
  inbox.set(begin.tx, box);
  let end: End | null = null;
  pg.transaction(async (t) => {
    reply(begin.id, []);
    for (;;) {
      while (!box.queue.length) await new Promise<void>((resolve) => (box.wake = resolve));
      const m = box.queue.shift()!;
      if (m.op === 'query') {
        try {
          reply(m.id, (await t.query(typeof m.sql === 'string' ? m.sql : m.sql.text, m.params as any[])).rows);
        } catch (err) {
          fail(m.id, err);
        }
        continue;
      }
      end = m;
      if (m.op === 'rollback') throw new Rollback();
      return;
    }
  }).then(
    () => end && reply(end.id, []),
    (err) => end && (err instanceof Rollback ? reply(end.id, []) : fail(end.id, err)),
  ).finally(() => inbox.delete(begin.tx));
}

port.on('message', (m: In) => {
  if (m.op === 'begin') return transaction(m);
  if ((m.op === 'query' && m.tx !== undefined) || m.op === 'commit' || m.op === 'rollback') {
    const box = inbox.get(m.tx!);
    if (!box) return fail(m.id, new Error('no such transaction'));
    box.queue.push(m);
    box.wake?.();
    box.wake = null;
    return;
  }
  if (m.op === 'close') {
    void pg.close().then(() => reply(m.id, []), (err) => fail(m.id, err));
    return;
  }
  if (m.op === 'query') query(m.sql, m.params).then((rows) => reply(m.id, rows), (err) => fail(m.id, err));
});
port.postMessage({ ready: true });
