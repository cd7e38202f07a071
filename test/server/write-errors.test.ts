// Every write path of the server with a disk that fills up half-way (an injected stream or writeFile that
// fails with ENOSPC after some bytes really reached the file): the answer is 507 'Not enough storage space on
// the server', the partial file is gone, and the process is still here (an 'error' event without a listener
// would have ended it). Also which errors mean "the database cannot write" (503) and the names files get.
// In test/server: it talks to a real node:http server with Node's fetch, which the unit tests replace with happy-dom's.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { databaseCannotWrite, databaseUnavailable } from '../../server/db/unavailable.ts';
import { QuotaExceeded } from '../../server/agents/uploads.ts';
import { DiskSpace, reserveFor } from '../../server/files/disk-space.ts';
import { receiveFile } from '../../server/files/multipart.ts';
import { receiveRaw } from '../../server/files/raw-body.ts';
import { copyFileOrRemove, isOutOfSpace, nodeFs, OutOfSpace, writeFileOrRemove, type FileSystem } from '../../server/files/safe-write.ts';
import { cutUtf8, safeFileName, storableName } from '../../server/files/storage.ts';
import { storeFile } from '../../server/agents/stored-files.ts';
import { LocalStore } from '../../server/storage/index.ts';
import { HttpError, sendError } from '../../server/http/errors.ts';
import { createDelivery } from '../../server/mail/transport.ts';
import { ActiveRecording } from '../../server/recording/active-recording.ts';

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });

/**
 * node:fs, except that a disk "fills" after `room` bytes: a stream writes that much to the real file and then
 * fails its next write (as fs.WriteStream does: the callback and an 'error' event); writeFile writes that much
 * and throws. `full = false` lets everything through again.
 */
function fillingFs(room: number) {
  const state = { room, full: true, unlinked: [] as string[] };
  const fs: FileSystem = {
    createWriteStream(path, options) {
      const real = nodeFs.createWriteStream(path, options);
      let written = 0;
      return new Writable({
        write(chunk: Buffer, _enc, done) {
          if (state.full && written + chunk.length > state.room) {
            const part = chunk.subarray(0, Math.max(0, state.room - written));
            written = state.room;
            return real.write(part, () => done(enospc()));
          }
          written += chunk.length;
          real.write(chunk, done);
        },
        final(done) {
          real.end(done);
        },
        destroy(err, done) {
          real.destroy();
          done(err);
        },
      });
    },
    async writeFile(path, data, options) {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      if (state.full && bytes.length > state.room) {
        await writeFile(path, bytes.subarray(0, state.room), options);
        throw enospc();
      }
      await writeFile(path, bytes, options);
    },
    async copyFile(source, destination, mode) {
      const bytes = await readFile(source);
      if (state.full && bytes.length > state.room) {
        await writeFile(destination, bytes.subarray(0, state.room), { flag: 'wx' });
        throw enospc();
      }
      await nodeFs.copyFile(source, destination, mode);
    },
    async unlink(path) {
      state.unlinked.push(path);
      await nodeFs.unlink(path);
    },
  };
  return Object.assign(state, { fs });
}

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aw-write-errors-'));
  dirs.push(dir);
  return dir;
}

/** A node:http server whose only handler is `handle`; its errors are answered as the API answers them. */
async function serve(handle: (req: IncomingMessage) => Promise<unknown>) {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    handle(req).then((body) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body ?? null));
    }, (err) => sendError(res, err, () => {}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(r)),
  };
}

async function send(url: string, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', body, headers });
  return { status: res.status, body: await res.json() };
}

// ---

const streams = suite('write errors: streamed bodies');
streams.after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

streams('an upload that fills the disk half-way answers 507 with the detail, and its partial file is removed', async () => {
  const dir = tempDir();
  const disk = fillingFs(256 * 1024);
  const destination = join(dir, '.upload');
  const server = await serve((req) => receiveFile(req, 'file', destination, { bytes: 10 * 1024 * 1024, fs: disk.fs }));
  try {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(2 * 1024 * 1024).fill(7)]), 'big.bin');
    const res = await send(server.url, form);
    assert.is(res.status, 507);
    assert.equal(res.body, { detail: 'Not enough storage space on the server' });
    assert.equal(disk.unlinked, [destination], 'the partial file was removed');
    assert.equal(readdirSync(dir), []);
    // Space again: the same path takes a file (nothing was left in its way).
    disk.full = false;
    const again = new FormData();
    again.append('file', new Blob(['fits now']), 'small.txt');
    const ok = await send(server.url, again);
    assert.is(ok.status, 200, JSON.stringify(ok.body));
    assert.is(ok.body.size, 8);
  } finally {
    await server.close();
  }
});

streams('a raw body (recording audio) that fills the disk answers 507 and leaves no partial file', async () => {
  const dir = tempDir();
  const disk = fillingFs(64 * 1024);
  const destination = join(dir, 'audio.ogg.partial');
  const server = await serve((req) => receiveRaw(req, destination, { bytes: 10 * 1024 * 1024, fs: disk.fs }, 'Audio'));
  try {
    const res = await send(server.url, new Uint8Array(1024 * 1024).fill(1), { 'Content-Type': 'audio/ogg' });
    assert.is(res.status, 507);
    assert.is(res.body.detail, 'Not enough storage space on the server');
    assert.not.ok(existsSync(destination));
  } finally {
    await server.close();
  }
});

streams('a stream that fails as it opens (no write ever succeeds) is an answer too, not an unhandled error event', async () => {
  const dir = tempDir();
  const fs: FileSystem = {
    ...nodeFs,
    createWriteStream: () => {
      const stream = new Writable({ write: (_c, _e, done) => done() });
      process.nextTick(() => stream.destroy(enospc()));
      return stream;
    },
  };
  const server = await serve((req) => receiveRaw(req, join(dir, 'x'), { bytes: 1024 * 1024, fs }));
  try {
    const res = await send(server.url, 'some bytes '.repeat(1000));
    assert.is(res.status, 507);
  } finally {
    await server.close();
  }
});

streams.run();

// ---

const files = suite('write errors: whole files');
files.after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

files('writeFileOrRemove: a full disk is OutOfSpace (507) and the partial file is gone; other errors pass unchanged', async () => {
  const dir = tempDir();
  const disk = fillingFs(10);
  const path = join(dir, 'f');
  try {
    await writeFileOrRemove(path, 'more than ten bytes', {}, disk.fs);
    assert.unreachable('the write should fail');
  } catch (err) {
    assert.instance(err, OutOfSpace);
    assert.is((err as OutOfSpace).status, 507);
    assert.is((err as OutOfSpace).detail, 'Not enough storage space on the server');
  }
  assert.not.ok(existsSync(path));
  // An existing file is never overwritten (wx) nor removed by a failed attempt.
  writeFileSync(path, 'keep me');
  try {
    await writeFileOrRemove(path, 'new', {});
    assert.unreachable('EEXIST');
  } catch (err) {
    assert.is((err as { code?: string }).code, 'EEXIST');
  }
  assert.ok(existsSync(path));
});

files('copyFileOrRemove (a file put in a desktop home): a full disk is OutOfSpace and the partial copy is gone', async () => {
  const dir = tempDir();
  const source = join(dir, 'source');
  writeFileSync(source, Buffer.alloc(10_000, 3));
  const disk = fillingFs(1000);
  try {
    await copyFileOrRemove(source, join(dir, 'copy'), undefined, disk.fs);
    assert.unreachable('the copy should fail');
  } catch (err) {
    assert.instance(err, OutOfSpace);
  }
  assert.equal(readdirSync(dir), ['source']);
  disk.full = false;
  await copyFileOrRemove(source, join(dir, 'copy'), undefined, disk.fs);
  assert.ok(existsSync(join(dir, 'copy')));
  // A helper process that copied for us (as the agent's user) only says it in words.
  assert.ok(isOutOfSpace(new Error('cp: error writing \'/x\': No space left on device')));
  assert.not.ok(isOutOfSpace(Object.assign(new Error('could not extend file: No space left on device'), { code: '53100', severity: 'ERROR' })));
});

files('a mail attachment (storeFile) that fills the disk: 507, its folder removed, nothing left for the agent', async () => {
  const dataDir = tempDir();
  const disk = fillingFs(100);
  try {
    await storeFile(new LocalStore(join(dataDir, 'files'), { fs: disk.fs }), 7, 'report.pdf', new Uint8Array(5000));
    assert.unreachable('the write should fail');
  } catch (err) {
    assert.instance(err, OutOfSpace);
  }
  assert.equal(readdirSync(join(dataDir, 'files', 'agent-7')), []);
});

files('an outbox .eml that does not fit fails the attempt with the detail and leaves no .tmp behind', async () => {
  const dataDir = tempDir();
  const disk = fillingFs(200);
  const delivery = createDelivery(null, dataDir, { fs: disk.fs });
  try {
    await delivery.send({ id: 3, from: 'a@localhost', to: 'b@example.com', subject: 'Hi', text: 'x'.repeat(5000), messageId: '<m1@localhost>' });
    assert.unreachable('the write should fail');
  } catch (err) {
    assert.is((err as Error).message, 'Not enough storage space on the server');
  }
  assert.equal(readdirSync(join(dataDir, 'outbox')), []);
  disk.full = false;
  await delivery.send({ id: 3, from: 'a@localhost', to: 'b@example.com', subject: 'Hi', text: 'x'.repeat(5000), messageId: '<m1@localhost>' });
  assert.equal(readdirSync(join(dataDir, 'outbox')), ['message-3-m1.eml']);
  delivery.close();
});

async function keysOf(store: LocalStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const { key } of store.list(prefix)) keys.push(key);
  return keys;
}

files('keyframes and the action log: a full disk keeps nothing, gives the counted bytes back, and the log is written once there is room', async () => {
  const disk = fillingFs(16);
  const store = new LocalStore(tempDir(), { fs: disk.fs });
  const counted: number[] = [];
  const logged: string[] = [];
  const png = Buffer.alloc(4096, 9);
  const recording = new ActiveRecording({
    id: 1, sessionId: 's', agentId: 1, userId: 1, startedAt: new Date(), blobs: store, folder: 'rec', maxMs: 60_000,
    desktop: () => ({ width: 800, height: 600, screenshot: async () => png }) as any,
    onMaxLength: () => {}, log: (m) => logged.push(m), account: async (bytes) => void counted.push(bytes),
  });
  recording.dropped('a.txt');
  try {
    await recording.finish(new Date());
    assert.unreachable('the action log cannot be written either');
  } catch (err) {
    assert.instance(err, OutOfSpace);
  }
  assert.equal(counted, [4096, -4096], 'counted before the write, given back after it failed');
  assert.match(logged.join('\n'), 'keyframe not written: Not enough storage space on the server');
  assert.equal(await keysOf(store, 'rec/'), [], 'neither the keyframe nor the log is stored');
  disk.full = false;
  const log = await recording.finish(new Date());
  assert.is(log.actions.length, 1);
  assert.is(log.actions[0].keyframe, undefined, 'the keyframe that was not kept is not named');
  assert.equal(await keysOf(store, 'rec/'), ['rec/actions.json']);
});

files('a keyframe past the agent\'s quota is not written and says so in the log once', async () => {
  const store = new LocalStore(tempDir());
  const logged: string[] = [];
  let now = Date.now();
  const recording = new ActiveRecording({
    id: 1, sessionId: 's', agentId: 1, userId: 1, startedAt: new Date(), blobs: store, folder: 'rec', maxMs: 60_000,
    desktop: () => ({ width: 800, height: 600, screenshot: async () => Buffer.alloc(100) }) as any,
    onMaxLength: () => {}, log: (m) => logged.push(m), account: async () => { throw new QuotaExceeded(1000, 1000); },
  });
  recording.dropped('a.txt', now);
  recording.dropped('b.txt', (now += 2000));
  const log = await recording.finish(new Date());
  assert.equal(log.actions.map((a) => a.keyframe), [undefined, undefined]);
  assert.equal(await keysOf(store, 'rec/'), ['rec/actions.json'], 'no keyframe');
  assert.is(logged.length, 1, logged.join('\n'));
});

files.run();

// ---

const answers = suite('write errors: what the API answers');

async function answer(err: unknown) {
  let status = 0;
  let body = '';
  let headers: Record<string, string> = {};
  const res = {
    headersSent: false,
    writeHead(s: number, h: Record<string, string>) {
      status = s;
      headers = h;
    },
    end(text: string) {
      body = text;
    },
  } as unknown as ServerResponse;
  sendError(res, err, () => {});
  return { status, body: JSON.parse(body), headers };
}

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'ERROR' });

answers('a database that cannot write is 503 with a detail that says why; Retry-After is set', async () => {
  const full = await answer(pgError('53100', 'could not extend file "base/5/16385": No space left on device'));
  assert.is(full.status, 503);
  assert.equal(full.body, { detail: 'The database cannot write right now: the server is out of disk space' });
  assert.ok(full.headers['Retry-After']);
  assert.equal((await answer(pgError('25006', 'cannot execute INSERT in a read-only transaction'))).body,
    { detail: 'The database cannot write right now: it is read-only' });
  const resources = await answer(pgError('53000', 'insufficient resources'));
  assert.equal(resources.body, { detail: 'The database cannot write right now: the server is out of resources' });
  // PGlite may report the full disk with another code, in the message.
  assert.is(databaseCannotWrite(pgError('58030', 'could not write to file "pg_wal/x": No space left on device')),
    'The database cannot write right now: the server is out of disk space');
});

answers('our own full disk is 507; an fs EROFS or a bad query is not mistaken for the database', async () => {
  const full = await answer(enospc());
  assert.is(full.status, 507);
  assert.equal(full.body, { detail: 'Not enough storage space on the server' });
  assert.is(databaseCannotWrite(Object.assign(new Error('EROFS: read-only file system, open'), { code: 'EROFS', errno: -30 })), null);
  assert.is(databaseCannotWrite(pgError('42P01', 'relation "x" does not exist')), null);
  assert.is(databaseUnavailable(pgError('53100', 'No space left on device')), false);
  assert.is((await answer(pgError('42P01', 'relation "x" does not exist'))).status, 500);
  assert.is((await answer(new HttpError(413, 'too big'))).status, 413);
});

answers.run();

// ---

const reserve = suite('disk space: the reserve');

reserve('the default reserve is 1024 MB, or 5 % of a disk smaller than 20 GB; DISK_RESERVE_MB wins, 0 keeps none', () => {
  const MB = 1024 * 1024;
  assert.is(reserveFor(80 * MB, null), 4 * MB);
  assert.is(reserveFor(100 * 1024 * MB, null), 1024 * MB);
  assert.is(reserveFor(80 * MB, 16 * MB), 16 * MB);
  assert.is(reserveFor(80 * MB, 0), 0);
});

reserve('below the reserve new files are refused with 507; the log warns once, and again only after recovering', async () => {
  const MB = 1024 * 1024;
  let free = 100 * MB;
  const lines: string[] = [];
  const disk = new DiskSpace({
    dir: '/data', reserveBytes: 10 * MB, log: { info: (m) => lines.push(`info ${m}`), error: (m) => lines.push(`error ${m}`) },
    statfs: async () => ({ bavail: free / 4096, blocks: (200 * MB) / 4096, bsize: 4096 }),
  });
  await disk.ensureRoom(95 * MB);
  try {
    await disk.ensureRoom(101 * MB);
    assert.unreachable('a file that cannot fit at all');
  } catch (err) {
    assert.instance(err, OutOfSpace);
  }
  assert.equal(lines, [], 'still above the reserve: nothing to warn about');
  free = 5 * MB;
  for (let i = 0; i < 3; i++) {
    try {
      await disk.ensureRoom();
      assert.unreachable('below the reserve');
    } catch (err) {
      assert.is((err as OutOfSpace).status, 507);
    }
  }
  assert.equal((await disk.read()), { free: 5 * MB, total: 200 * MB, reserve: 10 * MB, low: true });
  assert.is(lines.length, 1);
  assert.match(lines[0], /^error disk space low: 5\.0 MB free in \/data, below the reserve of 10\.0 MB/);
  free = 50 * MB;
  await disk.ensureRoom();
  assert.is(lines.length, 2);
  assert.match(lines[1], /^info disk space recovered/);
  free = 1 * MB;
  await disk.ensureRoom().catch(() => {});
  assert.is(lines.length, 3, 'low again after recovering: warned again');
});

reserve.run();

// ---

const names = suite('file names from users, agents and mail');
names.after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const CJK = '漢';

names('NUL, other control characters and bidi controls are stripped', () => {
  assert.is(safeFileName('a\u0000b\u0007c\u001f\u007f\u0085d.txt'), 'abcd.txt');
  assert.is(safeFileName('invoice\u202Etxt.exe'), 'invoicetxt.exe');
  assert.is(safeFileName('\u2066x\u2067y\u2068z\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d.pdf'), 'xyz.pdf');
  assert.is(storableName('invoice\u202Etxt.exe\u0000'), 'invoicetxt.exe');
  assert.is(safeFileName('\u202E'), 'file');
});

names('names are cut at 255 UTF-8 bytes, never inside a character, keeping the extension', () => {
  assert.is(safeFileName(CJK.repeat(200)), CJK.repeat(85));
  assert.is(Buffer.byteLength(safeFileName(CJK.repeat(86))), 255);
  assert.is(safeFileName(CJK.repeat(86)), CJK.repeat(85));
  assert.is(safeFileName(CJK.repeat(85)), CJK.repeat(85), 'exactly 255 bytes stays whole');
  const long = safeFileName(`${CJK.repeat(200)}.pdf`);
  assert.is(long, `${CJK.repeat(83)}.pdf`);
  assert.ok(Buffer.byteLength(long) <= 255);
  // A character of four bytes (a surrogate pair in JS) is kept whole or left out.
  const emoji = safeFileName('😀'.repeat(70));
  assert.is(emoji, '😀'.repeat(63));
  assert.not.match(emoji, /\p{Surrogate}/u);
  assert.is(cutUtf8('aé', 2), 'a');
});

names('the storage function mail uses stores such names cleanly on disk', async () => {
  const dataDir = tempDir();
  for (const [given, stored] of [
    ['a\u0000b.txt', 'ab.txt'], ['invoice\u202Etxt.exe', 'invoicetxt.exe'], [CJK.repeat(200), CJK.repeat(85)], [CJK.repeat(86), CJK.repeat(85)],
  ]) {
    const file = await storeFile(new LocalStore(join(dataDir, 'files')), 1, given, new Uint8Array([1, 2, 3]));
    assert.is(file.name, stored);
    assert.ok(file.file_path.endsWith(`/${stored}`));
    assert.ok(existsSync(join(dataDir, 'files', file.file_path)));
  }
});

names.run();
