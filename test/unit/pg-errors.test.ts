// PostgreSQL ending a connection (a restart: "terminating connection due to administrator command") while
// pg is still reading the bytes that came with it: the error must reach a listener of ours, never the
// process. The two places where a listener used to go on a turn too late (server/db/db.ts's checkout for
// transactions, server/db/snapshot-line.ts), each against the error emitted in that very turn.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import pg from 'pg';
import { checkout } from '../../server/db/db.ts';
import { openSnapshotLine } from '../../server/db/snapshot-line.ts';

const test = suite('pg errors in the same read');

const TERMINATING = 'terminating connection due to administrator command';

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}
const fatal = () => message('E', Buffer.from(`SFATAL\0VFATAL\0C57P01\0M${TERMINATING}\0\0`, 'utf8'));

/** Uncaught exceptions while `fn` runs (at most 5 s) and for a moment after (an unheard 'error' event is one). */
async function uncaught(fn: () => Promise<unknown>): Promise<Error[]> {
  const seen: Error[] = [];
  const onUncaught = (err: Error) => seen.push(err);
  process.on('uncaughtException', onUncaught);
  let timer: NodeJS.Timeout | undefined;
  try {
    const limit = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('still waiting after 5 s')), 5000)));
    await Promise.race([fn(), limit]).catch((err) => err.message.startsWith('still waiting') && seen.push(err));
    await new Promise((r) => setTimeout(r, 50));
  } finally {
    clearTimeout(timer);
    process.off('uncaughtException', onUncaught);
  }
  return seen;
}

test('a transaction\'s client has our error listener when the pool hands it over', async () => {
  const client = Object.assign(new EventEmitter(), { release() {} });
  // As pg-pool hands a client to a waiting caller from inside another's release, with pg's parser going on
  // to the next message of the same read: PostgreSQL's FATAL.
  const pool = {
    connect(cb: (err: Error | undefined, c?: typeof client) => void) {
      cb(undefined, client);
      client.emit('error', new Error(TERMINATING));
    },
  };
  const heard: Error[] = [];
  let got: unknown;
  const seen = await uncaught(async () => (got = await checkout(pool, (err) => heard.push(err))));
  assert.equal(seen, []);
  assert.is(got, client);
  assert.equal(heard.map((e) => e.message), [TERMINATING]);
});

test('a pool that fails to connect rejects the checkout', async () => {
  const pool = { connect: (cb: (err: Error | undefined) => void) => cb(new Error('refused')) };
  await checkout(pool, () => {}).then(() => assert.unreachable('resolved'), (err) => assert.is(err.message, 'refused'));
});

test('the snapshot line hears a FATAL that comes with the end of the startup', async () => {
  // A server that answers the startup with AuthenticationOk and ReadyForQuery, and ends the session in the
  // same write, as PostgreSQL shutting down can.
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.once('data', () => socket.write(Buffer.concat([message('R', Buffer.alloc(4)), message('Z', Buffer.from('I')), fatal()])));
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  let failure: Error | null = null;
  try {
    const seen = await uncaught(async () => {
      await openSnapshotLine(new pg.Client({ connectionString: `postgres://u@127.0.0.1:${port}/db` })).catch((err) => {
        failure = err;
      });
    });
    assert.equal(seen.map((e) => e.message), []);
    assert.ok(failure, 'the line was not opened');
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  }
});

test.run();
