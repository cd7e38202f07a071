// PostgreSQL's current snapshot (read-cache.ts's version), asked on a connection of its own. pg opens and
// authenticates it (TLS, SCRAM: nothing security-critical is done here); then this module owns its socket
// and speaks the extended query protocol for the one prepared statement itself. Through pg's Client the
// same round trip cost ~60 µs more of this process's CPU (query objects, result building, type parsing),
// and a hot cached GET on PostgreSQL pays a share of one per request. One statement, answers in order:
// Bind/Execute/Sync in, BindComplete, DataRow, CommandComplete, ReadyForQuery out (or ErrorResponse).
import type { Duplex } from 'node:stream';

const STATEMENT = 'aw_snapshot';
const TEXT = 'SELECT pg_current_snapshot()::text';

type Pending = { resolve: (s: string) => void; reject: (e: Error) => void; value: string | null; error: Error | null };
type PgClient = { connect(): Promise<unknown>; end(): Promise<void>; on(e: 'error', f: (err: Error) => void): unknown; connection?: { stream?: unknown } };

export type SnapshotLine = { read(): Promise<string>; close(): void };

function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}
const cstring = (s: string) => Buffer.from(s + '\0', 'utf8');
const int16s = (...values: number[]) => {
  const b = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => b.writeInt16BE(v, i * 2));
  return b;
};
const SYNC = message('S');
const PREPARE = Buffer.concat([message('P', cstring(STATEMENT), cstring(TEXT), int16s(0)), SYNC]);
// Unnamed portal, no parameter formats, no parameters, no result formats (text); Execute without a row limit.
const ASK = Buffer.concat([message('B', cstring(''), cstring(STATEMENT), int16s(0, 0, 0)), message('E', cstring(''), Buffer.alloc(4)), SYNC]);

/** Opens the line with a pg Client not yet connected (its config names the server and the credentials). */
export async function openSnapshotLine(client: PgClient): Promise<SnapshotLine> {
  const queue: Pending[] = [];
  let buffered: Buffer = Buffer.alloc(0);
  let broken = false;
  let stream: Duplex | undefined;
  const fail = (err: Error) => {
    if (broken) return;
    broken = true;
    for (const p of queue.splice(0)) p.reject(err);
    stream?.destroy();
    client.end().catch(() => {});
  };
  // Before connecting: PostgreSQL's "terminating connection" can come in the same read as the ReadyForQuery
  // that ends the startup, and pg emits it before this function resumes (unheard, it would end the process).
  client.on('error', fail);
  await client.connect();
  stream = client.connection?.stream as Duplex | undefined;
  if (!stream || typeof stream.write !== 'function') {
    await client.end().catch(() => {});
    throw new Error('pg client exposes no socket');
  }
  if (broken) throw new Error('snapshot connection closed');
  // pg's parser stops here: every byte from now on is read below.
  stream.removeAllListeners('data');
  stream.on('close', () => fail(new Error('snapshot connection closed')));

  stream.on('data', (chunk: Buffer) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    while (buffered.length >= 5) {
      const length = buffered.readInt32BE(1);
      if (length < 4) return fail(new Error('bad message from the server'));
      if (buffered.length < 1 + length) break;
      const type = buffered[0];
      const body = buffered.subarray(5, 1 + length);
      buffered = buffered.subarray(1 + length);
      const head = queue[0];
      if (type === 0x44 /* D: DataRow */ && head && body.readInt16BE(0) === 1) {
        const size = body.readInt32BE(2);
        head.value = size < 0 ? null : body.toString('utf8', 6, 6 + size);
      } else if (type === 0x45 /* E: ErrorResponse */ && head) {
        head.error = new Error(`snapshot query failed: ${errorText(body)}`);
      } else if (type === 0x5a /* Z: ReadyForQuery */) {
        const done = queue.shift();
        if (!done) return fail(new Error('unexpected ReadyForQuery'));
        if (done.error) done.reject(done.error);
        else done.resolve(done.value ?? '');
      }
      // The rest (ParseComplete, BindComplete, CommandComplete, notices, parameter changes) needs nothing.
    }
  });

  const send = (bytes: Buffer) =>
    new Promise<string>((resolve, reject) => {
      if (broken) return reject(new Error('snapshot connection closed'));
      queue.push({ resolve, reject, value: null, error: null });
      stream.write(bytes);
    });

  try {
    await send(PREPARE);
  } catch (err) {
    fail(err as Error);
    throw err;
  }
  return {
    read: () => send(ASK),
    close: () => fail(new Error('snapshot connection closed')),
  };
}

/** The M (message) field of an ErrorResponse. */
function errorText(body: Buffer): string {
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const end = body.indexOf(0, at + 1);
    if (end < 0) break;
    if (body[at] === 0x4d) return body.toString('utf8', at + 1, end);
    at = end + 1;
  }
  return 'unknown error';
}
