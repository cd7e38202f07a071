import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';
import { BlobSink, LocalStore, openBlobStore, s3Store, withLocalCopy, type BlobStore } from '../../server/storage/index.ts';
import { StartRefused } from '../../server/system/start-refused.ts';
import { startS3Server, type S3Server } from './s3-helpers.ts';
import { until } from './fault-helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'aw-blob-'));
(globalThis as { __teardown?: (() => Promise<void>)[] }).__teardown?.push(async () => rmSync(dir, { recursive: true, force: true }));
let s3: S3Server;
v8.setFlagsFromString('--expose-gc');
const gc: () => void = runInNewContext('gc');
const stores: Record<string, () => Promise<BlobStore>> = {
  local: async () => new LocalStore(join(dir, 'files')),
  // Parts of 64 KB: the multipart path is taken by a 200 KB put (a real S3 wants parts of at least 5 MB).
  s3: async () => s3Store((s3 ??= await startS3Server()).config('contract', 'pre/fix'), { partBytes: 64 * 1024, timeoutMs: 2000 }),
};

async function text(store: BlobStore, key: string, range?: { start: number; end?: number }) {
  const read = await store.get(key, range);
  if (!read) return null;
  const chunks: Buffer[] = [];
  for await (const c of read.body) chunks.push(c as Buffer);
  return { text: Buffer.concat(chunks).toString(), bytes: read.bytes, total: read.totalBytes };
}

async function keys(store: BlobStore, prefix: string) {
  const found: string[] = [];
  for await (const info of store.list(prefix)) found.push(`${info.key}:${info.bytes}`);
  return found;
}

async function refusal(p: Promise<unknown>): Promise<{ status?: number; detail?: unknown }> {
  try {
    await p;
  } catch (err) {
    return err as { status?: number };
  }
  assert.unreachable('expected a refusal');
  return {};
}

for (const [kind, open] of Object.entries(stores)) {
  const contract = suite(`blob store (${kind})`);

  contract('puts, reads whole and in ranges, heads, lists by prefix and deletes', async () => {
    const store = await open();
    await store.put('agent-1/a/one.txt', Buffer.from('0123456789'));
    await store.put('agent-1/b/two é.txt', Readable.from([Buffer.from('ab'), Buffer.from('cd')]));
    await store.put('agent-10/x.bin', Buffer.from('zz'));
    assert.equal(await text(store, 'agent-1/a/one.txt'), { text: '0123456789', bytes: 10, total: 10 });
    assert.equal(await text(store, 'agent-1/a/one.txt', { start: 2, end: 4 }), { text: '234', bytes: 3, total: 10 });
    assert.equal(await text(store, 'agent-1/a/one.txt', { start: 7 }), { text: '789', bytes: 3, total: 10 });
    assert.equal(await text(store, 'agent-1/b/two é.txt'), { text: 'abcd', bytes: 4, total: 4 });
    assert.is((await store.head('agent-1/a/one.txt'))?.bytes, 10);
    assert.is(await store.head('agent-1/none'), null);
    assert.is(await store.get('agent-1/none'), null);
    assert.equal(await keys(store, 'agent-1/'), ['agent-1/a/one.txt:10', 'agent-1/b/two é.txt:4']);
    await store.delete('agent-1/a/one.txt');
    await store.delete('agent-1/a/one.txt'); // gone already: not an error
    assert.equal(await keys(store, 'agent-1/'), ['agent-1/b/two é.txt:4']);
    await store.deletePrefix('agent-1/');
    assert.equal(await keys(store, 'agent-1'), ['agent-10/x.bin:2']);
    await store.deletePrefix('agent-10/');
  });

  contract('a large put goes up whole (multipart on S3) and a put past maxBytes leaves nothing', async () => {
    const store = await open();
    const big = Buffer.alloc(200 * 1024 + 17, 7);
    big.write('end', big.length - 3);
    const pieces = Array.from({ length: 50 }, (_, i) => big.subarray(i * 4096, (i + 1) * 4096)).concat(big.subarray(50 * 4096));
    assert.is((await store.put('agent-2/big.bin', Readable.from(pieces))).bytes, big.length);
    assert.is((await text(store, 'agent-2/big.bin', { start: big.length - 3 }))?.text, 'end');
    assert.is((await store.head('agent-2/big.bin'))?.bytes, big.length);
    const err = await refusal(store.put('agent-2/over.bin', Readable.from([big]), { maxBytes: 100 * 1024 }));
    assert.is(err.status, 413);
    assert.equal(await keys(store, 'agent-2/'), [`agent-2/big.bin:${big.length}`]);
    if (kind === 's3') assert.is(s3.uploads.size, 0, 'the multipart upload was aborted');
    await store.deletePrefix('agent-2/');
  });

  contract('a sink that keeps a local copy hands the bytes as they came to what needs a path, never reading the object back', async () => {
    const store = await open();
    const body = Buffer.alloc(150 * 1024, 3);
    const sink = new BlobSink(store, 'agent-3/drop.bin', { keepLocalCopy: true });
    for (let at = 0; at < body.length; at += 10_000) await sink.write(body.subarray(at, at + 10_000));
    assert.is((await sink.end()).bytes, body.length);
    const reads = () => (kind === 's3' ? s3.requests.filter((r) => r.method === 'GET').length : 0);
    const before = reads();
    let seen = '';
    const copied = await sink.withLocalCopy(async (path) => ((seen = path), readFileSync(path)));
    assert.ok(copied?.equals(body), 'the copy holds the bytes put');
    assert.is(reads(), before, 'nothing read back from the bucket');
    if (kind === 's3') assert.not.ok(existsSync(seen), 'the private copy is removed after use');
    else assert.is(seen, store.localPath!('agent-3/drop.bin'), 'the local store hands its own file');
    // A sink discarded midway leaves neither an object nor a copy.
    const copies = () => readdirSync(tmpdir()).filter((name) => name.startsWith('aw-blob-')).length;
    const copiesBefore = copies();
    const dropped = new BlobSink(store, 'agent-3/dropped.bin', { keepLocalCopy: true });
    await dropped.write(body);
    if (kind === 's3') assert.is(copies(), copiesBefore + 1, 'a copy is kept while the bytes come');
    await dropped.discard();
    assert.equal(await keys(store, 'agent-3/'), [`agent-3/drop.bin:${body.length}`]);
    assert.is(copies(), copiesBefore, 'no copy left');
    // A mail's attachment, still held as parsed: written out for the desktop rather than read back.
    const gets = reads();
    const fromBytes = await withLocalCopy(store, 'agent-3/drop.bin', async (path) => readFileSync(path), body);
    assert.ok(fromBytes?.equals(body));
    assert.is(reads(), gets, 'nothing read back from the bucket');
    assert.is(copies(), copiesBefore, 'no copy left');
    await store.deletePrefix('agent-3/');
  });

  contract('keys that could leave the store are refused', async () => {
    const store = await open();
    for (const key of ['../x', '/abs', 'a//b', 'a/./b', 'a\\b']) assert.is((await refusal(store.put(key, Buffer.from('x')))).status, 400, key);
  });

  contract.run();
}

const s3only = suite('blob store (s3): failures');

s3only('a bucket that answers 500 makes a put StorageUnavailable (503, {detail}) and lists nothing half written', async () => {
  const store = await stores.s3();
  s3.fault = { mode: 'error', when: (method, url) => method === 'PUT' && url.searchParams.get('partNumber') === '2' };
  try {
    const err = await refusal(store.put('agent-3/big.bin', Readable.from([Buffer.alloc(300 * 1024)])));
    assert.is(err.status, 503);
    assert.match(String(err.detail), /storage is not available/);
  } finally {
    s3.fault = null;
  }
  assert.equal(await keys(store, 'agent-3/'), []);
  assert.is(s3.uploads.size, 0, 'the multipart upload was aborted');
  s3.fault = { mode: 'error' };
  try {
    assert.is((await refusal(store.put('agent-3/small.bin', Buffer.from('x')))).status, 503);
    assert.is((await refusal(store.get('agent-3/small.bin'))).status, 503);
  } finally {
    s3.fault = null;
  }
  assert.equal(await keys(store, 'agent-3/'), []);
});

s3only('a multipart put begins while its body still arrives: part 1 is stored before the rest is sent', async () => {
  const store = await stores.s3();
  const body = Buffer.alloc(3 * 64 * 1024 + 5);
  for (let i = 0; i < body.length; i++) body[i] = (i * 7) & 0xff;
  const source = new Readable({ read() {} });
  const put = store.put('agent-6/streamed.bin', source);
  source.push(body.subarray(0, 64 * 1024 + 1)); // a byte past the first part: it is full and not the last
  const parts = () => s3.requests.filter((r) => r.path.includes('/streamed.bin?partNumber='));
  await until(() => parts().length === 1, 5000, 'part 1 at the bucket');
  assert.match(parts()[0].path, /partNumber=1&/);
  source.push(body.subarray(64 * 1024 + 1));
  source.push(null);
  assert.is((await put).bytes, body.length);
  const read = await store.get('agent-6/streamed.bin');
  const chunks: Buffer[] = [];
  for await (const c of read!.body) chunks.push(c as Buffer);
  assert.ok(Buffer.concat(chunks).equals(body), 'the object is the body, byte for byte');
  await store.deletePrefix('agent-6/');
});

s3only('a put expected past one part begins its multipart upload at once; shorter than expected, it is still whole', async () => {
  const store = await stores.s3();
  const source = new Readable({ read() {} });
  const put = store.put('agent-6/hinted.bin', source, { expectedBytes: 3 * 64 * 1024 });
  source.push(Buffer.from('a first few bytes, '));
  const begun = () => s3.requests.some((r) => r.method === 'POST' && r.path.endsWith('/hinted.bin?uploads='));
  await until(begun, 5000, 'CreateMultipartUpload before the first part is full');
  source.push(Buffer.from('and the end'));
  source.push(null);
  assert.is((await put).bytes, 30);
  assert.is((await text(store, 'agent-6/hinted.bin'))?.text, 'a first few bytes, and the end');
  assert.is(s3.uploads.size, 0, 'completed');
  await store.deletePrefix('agent-6/');
});

s3only('a put keeps at most two parts in flight: two that never answer hold the third back, and it is aborted', async () => {
  const store = s3Store((s3 ??= await startS3Server()).config('contract'), { partBytes: 64 * 1024, timeoutMs: 300 });
  s3.fault = { mode: 'hang', when: (method, url) => method === 'PUT' && ['1', '2'].includes(url.searchParams.get('partNumber')!) };
  try {
    assert.is((await refusal(store.put('agent-7/x.bin', Readable.from([Buffer.alloc(4 * 64 * 1024)])))).status, 503);
  } finally {
    s3.fault = null;
  }
  const parts = s3.requests.filter((r) => r.path.includes('/x.bin?partNumber=')).map((r) => new URLSearchParams(r.path.split('?')[1]).get('partNumber'));
  assert.equal(parts.sort(), ['1', '2'], 'part 3 waited for a place');
  assert.is(s3.uploads.size, 0, 'the multipart upload was aborted');
  assert.is(await store.head('agent-7/x.bin'), null);
});

s3only('a body is signed by its SHA-256 over http, and sent as UNSIGNED-PAYLOAD with signPayload: false (the https default)', async () => {
  const body = Buffer.alloc(2 * 64 * 1024 + 3, 9);
  for (const signPayload of [undefined, false]) {
    const store = s3Store((s3 ??= await startS3Server()).config('contract'), { partBytes: 64 * 1024, signPayload });
    for (const [key, data] of [[`agent-8/${signPayload}-small.bin`, body.subarray(0, 10)], [`agent-8/${signPayload}-big.bin`, body]] as const) {
      assert.is((await store.put(key, Readable.from([data]))).bytes, data.length);
      assert.is((await text(store, key))?.text, data.toString(), 'stored as sent');
      const puts = s3.requests.filter((r) => r.method === 'PUT' && r.path.includes(key));
      assert.ok(puts.length >= 1);
      for (const { contentSha256 } of puts) {
        if (signPayload === false) assert.is(contentSha256, 'UNSIGNED-PAYLOAD');
        else assert.match(contentSha256, /^[0-9a-f]{64}$/);
      }
    }
    await store.deletePrefix('agent-8/');
  }
});

s3only('a 100 MB put holds a few parts at a time, never the body', async () => {
  // The stand-in runs in this process: its parts go to files, so that what is measured is the client's.
  const own = await startS3Server({ partsInMemory: 0 });
  const store = s3Store(own.config('memory'));
  // Twice: buffers the first collection freed leave the arrayBuffers count only as they are swept, in the background.
  const live = () => (gc(), gc(), process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers);
  const base = live();
  let most = 0;
  const sink = new BlobSink(store, 'agent-9/big.bin');
  for (let i = 0; i < 1600; i++) {
    await sink.write(Buffer.alloc(64 * 1024, i & 0xff)); // 100 MiB in all, each chunk a buffer of its own as a socket's are
    if (i % 100 === 99) most = Math.max(most, live() - base);
  }
  assert.is((await sink.end()).bytes, 100 * 1024 * 1024);
  const part = 5 * 1024 * 1024;
  // Two parts in flight and one filling, and the stand-in's writes: under 5 parts (one that kept its parts: 20).
  assert.ok(most < 5 * part, `the put held ${(most / 1048576).toFixed(1)} MiB at most (parts of 5 MiB, two in flight)`);
  assert.is((await store.head('agent-9/big.bin'))?.bytes, 100 * 1024 * 1024);
  await own.close();
});

s3only('a listing over several pages (continuation tokens) has every key once, in order, and deletePrefix takes them all', async () => {
  const store = await stores.s3();
  s3.pageSize = 3;
  try {
    const names = ['a&b', 'c<d>', 'e "f"', 'g', 'h', 'i', 'j'].map((n) => `agent-5/${n}.txt`);
    for (const key of [...names].reverse()) await store.put(key, Buffer.from(key));
    assert.equal(await keys(store, 'agent-5/'), names.map((k) => `${k}:${k.length}`));
    await store.deletePrefix('agent-5/');
    assert.equal(await keys(store, 'agent-5/'), []);
  } finally {
    s3.pageSize = 1000;
  }
});

s3only('a bucket that never answers makes a put StorageUnavailable once its deadline passes', async () => {
  const store = s3Store((s3 ??= await startS3Server()).config('contract'), { timeoutMs: 300 });
  s3.fault = { mode: 'hang' };
  try {
    const err = await refusal(store.put('agent-4/x.bin', Buffer.from('x')));
    assert.is(err.status, 503);
  } finally {
    s3.fault = null;
  }
  assert.is(await store.head('agent-4/x.bin'), null);
});

s3only('wrong credentials or a missing bucket stop the start with one line naming STORAGE_URL', async () => {
  s3 ??= await startS3Server();
  const wrong = await refusal(openBlobStore({ dataDir: dir, storage: s3.config('contract', '', 'not-the-secret') }, () => {}));
  assert.instance(wrong, StartRefused);
  assert.match(String((wrong as Error).message), /^STORAGE_URL=s3:\/\/contract\/ cannot be used \(403 SignatureDoesNotMatch/);
  const missing = await refusal(openBlobStore({ dataDir: dir, storage: { ...s3.config('contract'), bucket: 'no-such-bucket' } }, () => {}));
  assert.match(String((missing as Error).message), /STORAGE_URL=s3:\/\/no-such-bucket\/ cannot be used \(404 NoSuchBucket/);
  const lines: string[] = [];
  const store = await openBlobStore({ dataDir: dir, storage: s3.config('contract') }, (line) => lines.push(line));
  assert.is(store.kind, 's3');
  assert.match(lines[0], /s3:\/\/contract\//);
});

s3only.run();
