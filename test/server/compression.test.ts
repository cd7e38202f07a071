// What goes over the wire: static assets as br, gzip or plain by Accept-Encoding (build.mjs writes the
// siblings), JSON answers compressed over 1 KB and not below, PNGs and token-bearing answers never,
// and the polled lists' ETag / 304.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request, createServer, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { call, newAgent, newUser, testServer } from './helpers.ts';
import { serveStatic } from '../../server/http/static.ts';

type Raw = { status: number; headers: IncomingHttpHeaders; body: Buffer };

/** A GET through node:http, which (unlike fetch) leaves the body as it came: compressed or not. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject).end();
  });
}

function decoded(r: Raw): Buffer {
  const coding = r.headers['content-encoding'];
  return coding === 'br' ? brotliDecompressSync(r.body) : coding === 'gzip' ? gunzipSync(r.body) : r.body;
}

async function api(path: string, token: string, headers: Record<string, string> = {}) {
  const { url } = await testServer();
  return rawGet(url + path, { Authorization: `Bearer ${token}`, ...headers });
}

// ---

const statics = suite('static assets: precompressed siblings by Accept-Encoding');
let root = '';
let base = '';
let close = () => {};
const js = Buffer.from(`export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `word ${i}`))};\n`);
const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

statics.before(async () => {
  root = mkdtempSync(join(tmpdir(), 'aw-static-'));
  mkdirSync(join(root, 'assets'));
  // What build.mjs leaves: the file, and .br/.gz beside it (made here with other levels: any valid stream does).
  writeFileSync(join(root, 'assets', 'app-ABC123.js'), js);
  writeFileSync(join(root, 'assets', 'app-ABC123.js.br'), brotliCompressSync(js));
  writeFileSync(join(root, 'assets', 'app-ABC123.js.gz'), gzipSync(js));
  writeFileSync(join(root, 'assets', 'logo-ABC123.png'), png);
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title>');
  const server = createServer((req, res) => void serveStatic(root, req, res, new URL(req.url!, 'http://x').pathname));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  close = () => server.close();
});
statics.after(() => {
  close();
  rmSync(root, { recursive: true, force: true });
});

for (const [accept, expected] of [
  ['gzip, deflate, br, zstd', 'br'],
  ['gzip', 'gzip'],
  ['br;q=0, gzip;q=0.8', 'gzip'],
  ['*', 'br'],
  ['br;q=0, gzip;q=0', undefined],
  ['identity', undefined],
  ['', undefined],
] as const) {
  statics(`Accept-Encoding '${accept}' gets ${expected ?? 'the plain file'}, the same bytes once decoded`, async () => {
    const r = await rawGet(`${base}/assets/app-ABC123.js`, accept ? { 'Accept-Encoding': accept } : {});
    assert.is(r.status, 200);
    assert.is(r.headers['content-encoding'], expected);
    assert.is(r.headers.vary, 'Accept-Encoding');
    assert.is(Number(r.headers['content-length']), r.body.length);
    if (expected) assert.ok(r.body.length < js.length, 'fewer bytes than the file');
    assert.ok(decoded(r).equals(js));
    assert.match(String(r.headers['cache-control']), /immutable/);
  });
}

statics('a PNG asset goes out as it is, whatever the client accepts', async () => {
  const r = await rawGet(`${base}/assets/logo-ABC123.png`, { 'Accept-Encoding': 'br, gzip' });
  assert.is(r.headers['content-encoding'], undefined);
  assert.ok(r.body.equals(png));
});

statics('HEAD tells the compressed length without a body', async () => {
  const r = await new Promise<Raw>((resolve, reject) => {
    request(`${base}/assets/app-ABC123.js`, { method: 'HEAD', headers: { 'Accept-Encoding': 'br' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.alloc(0) }));
    }).on('error', reject).end();
  });
  assert.is(r.headers['content-encoding'], 'br');
  assert.is(Number(r.headers['content-length']), brotliCompressSync(js).length);
});

statics('files without a hash in their name carry Last-Modified and answer 304 while unchanged, the app too', async () => {
  for (const path of ['/index.html', '/agent/7']) {
    const first = await rawGet(base + path, {});
    assert.is(first.status, 200);
    assert.is(first.headers['cache-control'], 'no-cache');
    const stamp = String(first.headers['last-modified']);
    assert.ok(Date.parse(stamp) > 0, path);
    const again = await rawGet(base + path, { 'If-Modified-Since': stamp });
    assert.is(again.status, 304, path);
    assert.is(again.body.length, 0);
    const older = await rawGet(base + path, { 'If-Modified-Since': new Date(Date.parse(stamp) - 60_000).toUTCString() });
    assert.is(older.status, 200, `${path}: a copy from before the change gets the file`);
  }
  // A changed file is sent whole again (its time moves on).
  const before = await rawGet(`${base}/index.html`, {});
  utimesSync(join(root, 'index.html'), new Date(), new Date(Date.now() + 120_000));
  const after = await rawGet(`${base}/index.html`, { 'If-Modified-Since': String(before.headers['last-modified']) });
  assert.is(after.status, 200);
  const hashed = await rawGet(`${base}/assets/app-ABC123.js`, {});
  assert.is(hashed.headers['last-modified'], undefined, 'hashed assets are immutable: nothing to revalidate');
});

// ---

const dynamic = suite('API answers: compressed when it pays');

dynamic('a JSON answer over 1 KB is sent with Brotli (or gzip), decoding to the same JSON', async () => {
  const { token, id } = await newUser('compress');
  const agent = await newAgent(id);
  const notes = 'Remember the milk. '.repeat(200);
  assert.is((await call(`/api/agents/${agent.id}/notes`, { method: 'PUT', token, body: { notes } })).status, 200);
  const br = await api(`/api/agents/${agent.id}/notes`, token, { 'Accept-Encoding': 'gzip, deflate, br' });
  assert.is(br.headers['content-encoding'], 'br');
  assert.match(String(br.headers.vary), /Accept-Encoding/);
  assert.ok(br.body.length < 1000, `compressed to ${br.body.length} bytes`);
  assert.equal(JSON.parse(decoded(br).toString()), { notes });
  const gz = await api(`/api/agents/${agent.id}/notes`, token, { 'Accept-Encoding': 'gzip' });
  assert.is(gz.headers['content-encoding'], 'gzip');
  assert.equal(JSON.parse(decoded(gz).toString()), { notes });
  const plain = await api(`/api/agents/${agent.id}/notes`, token);
  assert.is(plain.headers['content-encoding'], undefined);
  assert.equal(JSON.parse(plain.body.toString()), { notes });
});

dynamic('a JSON answer under 1 KB goes out plain', async () => {
  const { token, id } = await newUser('compress');
  const agent = await newAgent(id);
  await call(`/api/agents/${agent.id}/notes`, { method: 'PUT', token, body: { notes: 'short' } });
  const r = await api(`/api/agents/${agent.id}/notes`, token, { 'Accept-Encoding': 'br, gzip' });
  assert.is(r.status, 200);
  assert.is(r.headers['content-encoding'], undefined);
  assert.equal(JSON.parse(r.body.toString()), { notes: 'short' });
});

dynamic('a PNG screenshot is never compressed again', async () => {
  const { token, id } = await newUser('compress');
  const agent = await newAgent(id);
  const { parts } = await testServer();
  const picture = Buffer.concat([png, Buffer.alloc(4096, 7)]); // big and compressible: still sent as is
  await parts.screenshots.save(agent.id, picture);
  const r = await api(`/api/agents/${agent.id}/screenshot`, token, { 'Accept-Encoding': 'br, gzip' });
  assert.is(r.status, 200);
  assert.is(r.headers['content-type'], 'image/png');
  assert.is(r.headers['content-encoding'], undefined);
  assert.ok(r.body.equals(picture));
});

dynamic('token-bearing answers (sign-in) are neither compressed nor cached (BREACH)', async () => {
  const { url } = await testServer();
  const { email } = await newUser('breach');
  const res = await new Promise<Raw>((resolve, reject) => {
    const body = JSON.stringify({ email, password: 'correct horse battery', padding: 'x'.repeat(2000) });
    request(`${url}/api/auth/sign-in`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'Accept-Encoding': 'br, gzip', Origin: url },
    }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c) => chunks.push(c));
      r.on('end', () => resolve({ status: r.statusCode!, headers: r.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end(body);
  });
  assert.is(res.status, 200);
  assert.is(res.headers['content-encoding'], undefined);
  assert.ok(JSON.parse(res.body.toString()).token);
  assert.is(res.headers.etag, undefined);
});

// ---

const conditional = suite('conditional GETs of the polled lists');

conditional('the agents list carries an ETag and answers 304 to If-None-Match; a change changes the ETag', async () => {
  const { token, id } = await newUser('etag');
  for (let i = 0; i < 6; i++) await newAgent(id, `ETag agent ${i} with a name long enough to pass a kilobyte`);
  const first = await api('/api/agents/', token, { 'Accept-Encoding': 'br' });
  assert.is(first.status, 200);
  const etag = String(first.headers.etag);
  assert.match(etag, /^W\/".+"$/);
  assert.is(first.headers['cache-control'], 'private, no-cache');
  assert.is(first.headers['content-encoding'], 'br');

  const again = await api('/api/agents/', token, { 'Accept-Encoding': 'br', 'If-None-Match': etag });
  assert.is(again.status, 304);
  assert.is(again.body.length, 0);
  assert.is(again.headers.etag, etag);
  assert.is(again.headers['cache-control'], 'private, no-cache');

  await newAgent(id, 'One more');
  const changed = await api('/api/agents/', token, { 'Accept-Encoding': 'br', 'If-None-Match': etag });
  assert.is(changed.status, 200);
  assert.is.not(changed.headers.etag, etag);
  assert.ok(JSON.parse(decoded(changed).toString()).some((a: { name: string }) => a.name === 'One more'));
});

conditional('the polled agent (conversation screen) answers 304 while unchanged', async () => {
  const { token, id } = await newUser('etag');
  const agent = await newAgent(id);
  const first = await api(`/api/agents/${agent.id}`, token);
  const etag = String(first.headers.etag);
  assert.is((await api(`/api/agents/${agent.id}`, token, { 'If-None-Match': etag })).status, 304);
  await call('/api/threads/', { token, body: { agent_id: agent.id, name: 'New thread' } });
  const changed = await api(`/api/agents/${agent.id}`, token, { 'If-None-Match': etag });
  assert.is(changed.status, 200);
  assert.is.not(changed.headers.etag, etag);
});

conditional('an unchanged poll of the agents list is under 400 bytes on the wire, headers included', async () => {
  const { url } = await testServer();
  const { token, id } = await newUser('etag');
  for (let i = 0; i < 10; i++) await newAgent(id, `Polled agent ${i}`);
  const etag = String((await api('/api/agents/', token)).headers.etag);
  const { hostname, port } = new URL(url);
  const bytes = await new Promise<number>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET /api/agents/ HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\n`
        + `Accept-Encoding: gzip, deflate, br\r\nIf-None-Match: ${etag}\r\nConnection: close\r\n\r\n`);
    });
    let n = 0;
    let head = '';
    socket.on('data', (d) => ((n += d.length), (head += d.toString('latin1'))));
    socket.on('end', () => (head.startsWith('HTTP/1.1 304') ? resolve(n) : reject(new Error(head.slice(0, 200)))));
    socket.on('error', reject);
  });
  assert.ok(bytes <= 400, `${bytes} bytes`);
});

statics.run();
dynamic.run();
conditional.run();
