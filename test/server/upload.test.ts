import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, until } from './fault-helpers.ts';
import { ADMIN, adminToken, call, newAgent, newUser, storedBytes, storedKeys, testS3, testServer } from './helpers.ts';

const upload = suite('agent file upload');

async function multipart(path: string, token: string, parts: { name: string; filename?: string; body: Buffer | string }[]) {
  const form = new FormData();
  for (const p of parts) {
    if (p.filename) form.append(p.name, new Blob([typeof p.body === "string" ? p.body : new Uint8Array(p.body)]), p.filename);
    else form.append(p.name, String(p.body));
  }
  const { url } = await testServer();
  const res = await fetch(url + path, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: await res.json() };
}

upload('stores the file under a safe name and returns file_path', async () => {
  const { parts } = await testServer();
  const user = await newUser();
  const agent = await newAgent(user.id);
  const content = Buffer.from('line one\r\n--not-a-boundary\r\nline three'.repeat(5000));
  const res = await multipart(`/api/agents/${agent.id}/upload_file`, user.token, [
    { name: 'note', body: 'ignored field' },
    { name: 'file', filename: '../../etc/passwd', body: content },
  ]);
  assert.is(res.status, 200);
  assert.match(res.body.file_path, new RegExp(`^agent-${agent.id}/[0-9a-f-]{36}/passwd$`));
  assert.is(res.body.size, content.length);
  assert.ok((await storedBytes(res.body.file_path))?.equals(content), 'stored bytes equal the upload');
  const detail = await call(`/api/agents/${agent.id}`, { token: user.token });
  assert.is(detail.body.file_path, res.body.file_path);
});

upload('a bucket that answers 500 (S3 pass only): 503 with {detail}, nothing listed, nothing recorded', async () => {
  const { parts } = await testServer();
  if (!testS3) return; // the local store's failures are write-errors.test.ts's
  const user = await newUser();
  const agent = await newAgent(user.id);
  const s3 = testS3;
  const big = Buffer.alloc(7 * 1024 * 1024, 3); // two parts: the second one fails, after the first was stored
  for (const when of [undefined, (method: string, url: URL) => method === 'PUT' && url.searchParams.get('partNumber') === '2']) {
    s3.fault = { mode: 'error', when };
    try {
      const res = await multipart(`/api/agents/${agent.id}/upload_file`, user.token, [{ name: 'file', filename: 'big.bin', body: big }]);
      assert.is(res.status, 503);
      assert.is(res.body.detail, 'File storage is not available right now; try again in a moment');
    } finally {
      s3.fault = null;
    }
    assert.equal(await storedKeys(`agent-${agent.id}/`), []);
    assert.is(s3.uploads.size, 0, 'the multipart upload was aborted');
    assert.equal(await parts.db.query('SELECT id FROM uploaded_files WHERE agent_id = $1', [agent.id]), []);
  }
  const res = await multipart(`/api/agents/${agent.id}/upload_file`, user.token, [{ name: 'file', filename: 'after.txt', body: 'fine again' }]);
  assert.is(res.status, 200);
});

upload('a bucket that never answers (S3 pass only): 503 with {detail} once S3_TIMEOUT_MS passed, nothing listed, nothing kept', async () => {
  if (!testS3) return;
  const s3 = testS3;
  // A server of its own (its own process, PGlite, one bucket of the stand-in) with a short deadline: the shared one waits 30 s.
  const TIMEOUT_MS = 1000;
  const { endpoint, accessKeyId, secretAccessKey } = s3.config('hang-files');
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-s3-hang-'));
  const server = await spawnServer({
    DATA_DIR: dataDir, DATABASE_URL: '', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, STORAGE_URL: 's3://hang-files/aw',
    S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: '1', AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, S3_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  const api = async (path: string, token: string, body?: unknown) => {
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const res = await fetch(server.url + path, { method: body ? 'POST' : 'GET', headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  const post = async (token: string, agentId: number, name: string, body: Buffer) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(body)]), name);
    const res = await fetch(`${server.url}/api/agents/${agentId}/upload_file`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
    return { status: res.status, body: await res.json() };
  };
  try {
    const json = { 'Content-Type': 'application/json' };
    const { token } = await (await fetch(`${server.url}/api/auth/sign-in`, { method: 'POST', headers: json, body: JSON.stringify(ADMIN) })).json();
    const agent = (await api('/api/agents/', token, { name: 'Hanging bucket agent' })).body;
    const bucket = s3.buckets.get('hang-files')!;
    const ours = (url: URL) => url.pathname.startsWith('/hang-files/');
    const cases: [string, (method: string, url: URL) => boolean, Buffer][] = [
      ['every request of the bucket', (_method, url) => ours(url), Buffer.from('never stored')],
      // Two parts: the first is stored, the second never answered; the abort of the multipart upload is answered.
      ['the second part', (method, url) => ours(url) && method === 'PUT' && url.searchParams.get('partNumber') === '2', Buffer.alloc(7 * 1024 * 1024, 5)],
    ];
    for (const [what, when, body] of cases) {
      s3.fault = { mode: 'hang', when };
      const started = Date.now();
      let res: Awaited<ReturnType<typeof post>>;
      try {
        res = await post(token, agent.id, 'hung.bin', body);
      } finally {
        s3.fault = null;
      }
      const took = Date.now() - started;
      assert.is(res.status, 503, `${what}: ${JSON.stringify(res.body)}`);
      assert.is(res.body.detail, 'File storage is not available right now; try again in a moment');
      // The deadline ended it: not before it, and long before the default 30 s.
      assert.ok(took >= TIMEOUT_MS && took < 15_000, `${what}: answered after ${took} ms`);
      assert.equal((await api(`/api/agents/${agent.id}/files`, token)).body, [], `${what}: nothing listed`);
      assert.equal([...bucket.keys()].filter((k) => k.startsWith(`aw/agent-${agent.id}/`)), [], `${what}: nothing stored`);
      assert.equal([...s3.uploads.values()].filter((u) => u.bucket === 'hang-files'), [], `${what}: no multipart upload left open`);
    }
    const after = await post(token, agent.id, 'after.txt', Buffer.from('fine again'));
    assert.is(after.status, 200);
    assert.equal((await api(`/api/agents/${agent.id}/files`, token)).body.map((f: any) => f.name), ['after.txt']);
  } finally {
    s3.fault = null;
    server.child.kill('SIGTERM');
    const stopped = () => server.child.exitCode !== null || server.child.signalCode !== null;
    await until(stopped, 15_000, 'the server to stop').catch(() => server.child.kill('SIGKILL'));
    rmSync(dataDir, { recursive: true, force: true });
  }
});

upload('deleting the agent deletes its files from the store and what this instance keeps on its disk for it', async () => {
  const { parts } = await testServer();
  const user = await newUser();
  const agent = await newAgent(user.id);
  const res = await multipart(`/api/agents/${agent.id}/upload_file`, user.token, [{ name: 'file', filename: 'gone.txt', body: 'soon gone' }]);
  assert.is(res.status, 200);
  const local = join(parts.config.dataDir, 'files', `agent-${agent.id}`, 'recordings', '1');
  mkdirSync(local, { recursive: true });
  writeFileSync(join(local, 'audio.webm'), 'audio');
  const deleted = await call(`/api/agents/${agent.id}`, { method: 'DELETE', token: await adminToken() });
  assert.is(deleted.status, 204);
  assert.equal(await storedKeys(`agent-${agent.id}/`), []);
  assert.not.ok(existsSync(join(parts.config.dataDir, 'files', `agent-${agent.id}`)));
});

upload('a body without a file part is 422; a non-multipart body is 400', async () => {
  const user = await newUser();
  const agent = await newAgent(user.id);
  const none = await multipart(`/api/agents/${agent.id}/upload_file`, user.token, [{ name: 'other', body: 'x' }]);
  assert.is(none.status, 422);
  assert.equal(none.body.detail[0].loc, ['body', 'file']);
  const json = await call(`/api/agents/${agent.id}/upload_file`, { token: user.token, body: { file: 'x' } });
  assert.is(json.status, 400);
});

upload('a stranger cannot upload to someone else\'s agent', async () => {
  const owner = await newUser();
  const stranger = await newUser();
  const agent = await newAgent(owner.id);
  const res = await multipart(`/api/agents/${agent.id}/upload_file`, stranger.token, [{ name: 'file', filename: 'a.txt', body: 'x' }]);
  assert.is(res.status, 404);
});

upload('over 100 MB is 413 while streaming (chunked, no length), without the server holding it', async () => {
  const { url, parts } = await testServer();
  const user = await newUser();
  const agent = await newAgent(user.id);
  const boundary = 'testboundary123';
  const before = process.memoryUsage().rss;
  let peak = before;
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(`${url}/api/agents/${agent.id}/upload_file`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${user.token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Transfer-Encoding': 'chunked' },
    }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`);
    const chunk = Buffer.alloc(1024 * 1024, 7);
    let sent = 0;
    const pump = () => {
      while (sent < 110) {
        sent++;
        peak = Math.max(peak, process.memoryUsage().rss);
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end(`\r\n--${boundary}--\r\n`);
    };
    pump();
  });
  assert.is(status, 413);
  assert.ok(peak - before < 60 * 1024 * 1024, `server and client together grew ${Math.round((peak - before) / 1048576)} MB`);
  // Nothing of the refused upload is left behind.
  assert.equal(await storedKeys(`agent-${agent.id}/`), []);
});

upload('a declared length over the cap is refused before reading', async () => {
  const user = await newUser();
  const agent = await newAgent(user.id);
  const { url } = await testServer();
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(`${url}/api/agents/${agent.id}/upload_file`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${user.token}`, 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': String(200 * 1024 * 1024) },
    }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.write('--x\r\n');
  });
  assert.is(status, 413);
});

const MB = 1024 * 1024;

/** A multipart body of `size` bytes of file content, as one stream (no declared length) or one buffer. */
function bigForm(size: number, boundary = 'bigboundary42') {
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const type = `multipart/form-data; boundary=${boundary}`;
  const stream = () => new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(head);
      const chunk = new Uint8Array(MB);
      for (let i = 0; i < Math.floor(size / MB); i++) c.enqueue(chunk);
      c.enqueue(new Uint8Array(size % MB));
      c.enqueue(tail);
      c.close();
    },
  });
  return { type, stream, buffer: () => Buffer.concat([head, Buffer.alloc(size), tail]) };
}

upload('Node fetch gets the 413 {detail} of a 101 MB upload, declared up front or streamed', async () => {
  const { url } = await testServer();
  const user = await newUser();
  const agent = await newAgent(user.id);
  const form = bigForm(101 * MB);
  const send = (body: BodyInit) => fetch(`${url}/api/agents/${agent.id}/upload_file`, {
    method: 'POST', headers: { Authorization: `Bearer ${user.token}`, 'Content-Type': form.type }, body, duplex: 'half',
  } as RequestInit);
  for (const body of [form.buffer(), form.stream()]) {
    const res = await send(body);
    assert.is(res.status, 413);
    assert.equal(await res.json(), { detail: 'File exceeds the 100MB limit' });
  }
  // The connection is still good for the next call.
  assert.is((await call(`/api/agents/${agent.id}`, { token: user.token })).status, 200);
});

/** Like most HTTP clients: writes the whole request, every byte, and only then reads the reply. */
async function sendAllThenRead(url: string, head: string, body: Buffer[]): Promise<string> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  let reply = '';
  socket.on('data', (d) => (reply += d));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const write = (data: string | Buffer) => new Promise<void>((resolve, reject) => socket.write(data, (err) => (err ? reject(err) : resolve())));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  await write(head);
  for (const part of body) await write(part);
  await new Promise<void>((resolve) => {
    const check = () => (/\r\n\r\n[\s\S]*\}$/.test(reply) ? resolve() : setTimeout(check, 20));
    check();
    void closed.then(resolve);
  });
  socket.destroy();
  return reply;
}

upload('a client that sends all 101 MB before it reads gets the 413 {detail}, with or without a declared length', async () => {
  const { url } = await testServer();
  const user = await newUser();
  const agent = await newAgent(user.id);
  const form = bigForm(101 * MB);
  const body = form.buffer();
  const parts = Array.from({ length: Math.ceil(body.length / MB) }, (_, i) => body.subarray(i * MB, (i + 1) * MB));
  const head = `POST /api/agents/${agent.id}/upload_file HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: ${form.type}\r\n`;
  const declared = await sendAllThenRead(url, `${head}Content-Length: ${body.length}\r\n\r\n`, parts);
  const chunked = await sendAllThenRead(url, `${head}Transfer-Encoding: chunked\r\n\r\n`, [
    ...parts.map((p) => Buffer.concat([Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')])), Buffer.from('0\r\n\r\n'),
  ]);
  for (const reply of [declared, chunked]) {
    assert.match(reply, /^HTTP\/1\.1 413 /);
    assert.match(reply, /\{"detail":"File exceeds the 100MB limit"\}$/);
  }
});

upload('curl gets the 413 {detail} of a 101 MB file', async () => {
  const { url } = await testServer();
  const user = await newUser();
  const agent = await newAgent(user.id);
  const dir = mkdtempSync(join(tmpdir(), 'aw-curl-'));
  const file = join(dir, 'big.bin');
  writeFileSync(file, '');
  truncateSync(file, 101 * MB);
  try {
    const out = await new Promise<string>((resolve, reject) => execFile('curl', [
      '-sS', '-w', '\n%{http_code}', '-H', `Authorization: Bearer ${user.token}`, '-F', `file=@${file}`, `${url}/api/agents/${agent.id}/upload_file`,
    ], { maxBuffer: MB }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message} ${stderr}`)) : resolve(stdout))));
    const [body, code] = out.split('\n');
    assert.is(code, '413');
    assert.equal(JSON.parse(body), { detail: 'File exceeds the 100MB limit' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

upload('each agent keeps at most its storage quota: a clear 413, nothing kept, also when uploads race', async () => {
  const { url, parts } = await testServer();
  const user = await newUser();
  const agent = await newAgent(user.id);
  const quota = parts.config.agentStorageBytes;
  parts.config.agentStorageBytes = 3 * MB;
  const put = async (size: number, declared = true) => {
    const form = bigForm(size);
    const res = await fetch(`${url}/api/agents/${agent.id}/upload_file`, {
      method: 'POST', headers: { Authorization: `Bearer ${user.token}`, 'Content-Type': form.type },
      body: declared ? form.buffer() : form.stream(), duplex: 'half',
    } as RequestInit);
    return { status: res.status, body: await res.json() };
  };
  const kept = async () => (await storedKeys(`agent-${agent.id}/`)).length;
  try {
    assert.is((await put(2 * MB)).status, 200);
    for (const declared of [true, false]) {
      const refused = await put(2 * MB, declared);
      assert.is(refused.status, 413);
      assert.is(refused.body.detail, 'Not enough storage left for this agent: 1.0 MB of its 3 MB remain');
    }
    assert.is(await kept(), 1, 'the refused uploads left nothing behind');
    // Two uploads that each fit, but not both: one is refused when it is recorded.
    const both = await Promise.all([put(0.6 * MB), put(0.6 * MB)]);
    assert.equal(both.map((r) => r.status).sort(), [200, 413]);
    assert.is(await kept(), 2);
  } finally {
    parts.config.agentStorageBytes = quota;
  }
});

/** One file part with the file name as raw UTF-8 bytes (FormData would escape some of them). */
async function uploadNamed(agentId: number, token: string, filename: string, content = 'named') {
  const { url } = await testServer();
  const boundary = 'namesboundary7';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="`),
    Buffer.from(filename, 'utf8'),
    Buffer.from(`"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`),
  ]);
  const res = await fetch(`${url}/api/agents/${agentId}/upload_file`, {
    method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body,
  });
  return { status: res.status, body: await res.json() };
}

upload('file names lose NUL and bidi controls and are cut at 255 UTF-8 bytes, whole characters only; stored as such', async () => {
  const { parts } = await testServer();
  const user = await newUser();
  const agent = await newAgent(user.id);
  const cjk = '漢';
  const cases: [string, string][] = [
    ['report\u0000.txt', 'report.txt'],
    ['invoice\u202Etxt.exe', 'invoicetxt.exe'],
    ['\u2066left\u2069\u200e\u200f\u061c.md', 'left.md'],
    [cjk.repeat(200), cjk.repeat(85)],
    [cjk.repeat(86), cjk.repeat(85)],
  ];
  for (const [given, stored] of cases) {
    const res = await uploadNamed(agent.id, user.token, given);
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.is(res.body.file_name, stored);
    assert.ok(Buffer.byteLength(res.body.file_name) <= 255);
    assert.match(res.body.file_path, new RegExp(`^agent-${agent.id}/[0-9a-f-]{36}/`));
    assert.is((await storedBytes(res.body.file_path))?.toString(), 'named');
    const row = await parts.db.one<{ original_name: string }>('SELECT original_name FROM uploaded_files WHERE file_path = $1', [res.body.file_path]);
    assert.not.match(row!.original_name, /[\u0000-\u001f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
  }
});

upload('the quota counts everything stored for the agent: its desktop\'s screenshot and its recordings\' audio too', async () => {
  const { url, parts } = await testServer();
  const user = await newUser();
  const agent = await newAgent(user.id);
  const quota = parts.config.agentStorageBytes;
  parts.config.agentStorageBytes = 3 * MB;
  const dir = join(parts.config.dataDir, 'files', `agent-${agent.id}`);
  const put = async (size: number) => {
    const form = bigForm(size);
    const res = await fetch(`${url}/api/agents/${agent.id}/upload_file`, {
      method: 'POST', headers: { Authorization: `Bearer ${user.token}`, 'Content-Type': form.type }, body: form.buffer(),
    });
    return { status: res.status, body: await res.json() };
  };
  try {
    // The screenshot is written by the desktop code, without a size in the database.
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'screenshot.png'), Buffer.alloc(MB));
    // A recording's audio, as the screenshare route records it.
    await parts.db.query(
      'INSERT INTO recordings (session_id, user_id, agent_id, started_at, stopped_at, audio_bytes) VALUES ($1, $2, $3, now(), now(), $4)',
      [randomUUID(), user.id, agent.id, MB / 2]);
    const refused = await put(2 * MB);
    assert.is(refused.status, 413);
    assert.is(refused.body.detail, 'Not enough storage left for this agent: 1.5 MB of its 3 MB remain');
    assert.is((await put(MB)).status, 200);
    // What the desktop code asks before it stores a new screenshot in place of the old one (0.5 MB left now).
    const screenshot = join(dir, 'screenshot.png');
    await parts.storage.ensureFileFits(agent.id, 1.4 * MB, screenshot);
    try {
      await parts.storage.ensureFileFits(agent.id, 1.6 * MB, screenshot);
      assert.unreachable('past the quota');
    } catch (err) {
      assert.is((err as { status?: number }).status, 413);
    }
  } finally {
    parts.config.agentStorageBytes = quota;
  }
});

upload.run();
