import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { call, newAgent, newUser, testServer } from './helpers.ts';

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
  const { services } = await testServer();
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
  const stored = join(services.config.dataDir, 'files', res.body.file_path);
  assert.ok(readFileSync(stored).equals(content), 'stored bytes equal the upload');
  const detail = await call(`/api/agents/${agent.id}`, { token: user.token });
  assert.is(detail.body.file_path, res.body.file_path);
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
  const { url, services } = await testServer();
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
  const { readdirSync } = await import('node:fs');
  const agentDir = join(services.config.dataDir, 'files', `agent-${agent.id}`);
  assert.equal(existsSync(agentDir) ? readdirSync(agentDir) : [], []);
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

upload.run();
