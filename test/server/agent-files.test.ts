// GET /api/agents/:id/files (issue 50): the agent's uploads and what its desktop holds in ~/Desktop and ~/Downloads,
// each downloadable as an attachment (nosniff, octet-stream, RFC 6266 name) by its owner and admins only (404 for
// others). Nothing the agent planted is followed: a link in ~/Desktop to a server file, ~/Desktop itself a link, a
// FIFO, a climbing path. A home this machine does not have the newest copy of is read from the newest checkpoint.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';
import { IS_ROOT } from './fault-helpers.ts';

const files = suite('agent files');
let server: Awaited<ReturnType<typeof testServer>>;

files.before(async () => {
  server = await testServer();
});

const homeOf = (agentId: number) => join(server.parts.config.dataDir, 'desktops', `agent-${agentId}`);

/** Writes files in the agent's home as its desktop would have (owned by the agent's uid where desktops are isolated). */
function plant(agentId: number, files: Record<string, string>) {
  const home = homeOf(agentId);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(home, rel, '..'), { recursive: true });
    writeFileSync(join(home, rel), text);
  }
}

async function ownedAgent() {
  const owner = await newUser('files');
  const agent = await newAgent(owner.id);
  return { owner, agent };
}

async function upload(token: string, agentId: number, name: string, text: string) {
  const form = new FormData();
  form.append('file', new Blob([text]), name);
  const res = await call(`/api/agents/${agentId}/upload_file`, { token, raw: form });
  assert.is(res.status, 200, JSON.stringify(res.body));
}

async function download(url: string, token: string) {
  const { url: base } = await testServer();
  const res = await fetch(base + url, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

files('the owner lists uploads and the files in ~/Desktop and ~/Downloads, and downloads each as an attachment', async () => {
  const { owner, agent } = await ownedAgent();
  await upload(owner.token, agent.id, 'brief.txt', 'the brief');
  plant(agent.id, { 'Desktop/report ünïcode "q".txt': 'the report', 'Downloads/data.csv': 'a,b\n1,2\n', 'Documents/elsewhere.txt': 'not listed' });

  const res = await call(`/api/agents/${agent.id}/files`, { token: owner.token });
  assert.is(res.status, 200);
  const byName = new Map(res.body.map((f: any) => [`${f.source}:${f.name}`, f]));
  const report: any = byName.get('desktop:report ünïcode "q".txt');
  assert.ok(report, JSON.stringify(res.body));
  assert.is(report.bytes, 10);
  assert.is(report.folder, 'Desktop');
  assert.ok(!Number.isNaN(Date.parse(report.modified_at)));
  assert.ok(byName.get('desktop:data.csv'));
  const brief: any = byName.get('upload:brief.txt');
  assert.is(brief.bytes, 9);
  assert.not.ok([...byName.keys()].some((k) => String(k).includes('elsewhere')), 'only ~/Desktop and ~/Downloads');

  const got = await download(report.url, owner.token);
  assert.is(got.status, 200);
  assert.is(got.text, 'the report');
  assert.is(got.headers.get('content-type'), 'application/octet-stream');
  assert.is(got.headers.get('x-content-type-options'), 'nosniff');
  assert.is(got.headers.get('content-disposition'),
    `attachment; filename="report _n_code _q_.txt"; filename*=UTF-8''report%20%C3%BCn%C3%AFcode%20%22q%22.txt`);
  const up = await download(brief.url, owner.token);
  assert.is(up.status, 200);
  assert.is(up.text, 'the brief');
  assert.match(up.headers.get('content-disposition')!, /^attachment; filename="brief.txt"/);
});

files('another user gets 404 for the list and every file; an admin gets them; nobody signed in gets 401', async () => {
  const { owner, agent } = await ownedAgent();
  await upload(owner.token, agent.id, 'private.txt', 'owner only');
  plant(agent.id, { 'Desktop/private-desktop.txt': 'owner only too' });
  const list = (await call(`/api/agents/${agent.id}/files`, { token: owner.token })).body;
  assert.is(list.length >= 2, true);
  const other = await newUser('files-other');
  const theirs = await call(`/api/agents/${agent.id}/files`, { token: other.token });
  assert.is(theirs.status, 404);
  assert.not.match(JSON.stringify(theirs.body), /private/);
  const admin = await adminToken();
  assert.is((await call(`/api/agents/${agent.id}/files`, { token: admin })).status, 200);
  for (const file of list) {
    assert.is((await download(file.url, other.token)).status, 404, file.url);
    const asAdmin = await download(file.url, admin);
    assert.is(asAdmin.status, 200, file.url);
    assert.match(asAdmin.text, /owner only/);
    const { url: base } = await testServer();
    assert.is((await fetch(base + file.url)).status, 401);
  }
  // Another agent's upload through this agent's path: not found.
  const theirAgent = await newAgent(other.id);
  await upload(other.token, theirAgent.id, 'theirs.txt', 'not yours');
  const theirList = (await call(`/api/agents/${theirAgent.id}/files`, { token: other.token })).body;
  const theirUpload = theirList.find((f: any) => f.source === 'upload');
  const crossed = theirUpload.url.replace(`/agents/${theirAgent.id}/`, `/agents/${agent.id}/`);
  assert.is((await download(crossed, owner.token)).status, 404);
});

files('nothing the agent planted is followed: a link to a server file, ~/Downloads as a link, a FIFO, climbing paths', async () => {
  const { owner, agent } = await ownedAgent();
  const home = homeOf(agent.id);
  plant(agent.id, { 'Desktop/plain.txt': 'plain' });
  const secret = join(server.parts.config.dataDir, 'server-secret.txt');
  writeFileSync(secret, 'SERVER SECRET');
  symlinkSync(secret, join(home, 'Desktop', 'secret.txt'));
  rmSync(join(home, 'Downloads'), { recursive: true, force: true });
  symlinkSync(server.parts.config.dataDir, join(home, 'Downloads'));
  execFileSync('mkfifo', [join(home, 'Desktop', 'pipe')]);
  mkdirSync(join(home, 'Desktop', 'folder'));

  const res = await call(`/api/agents/${agent.id}/files`, { token: owner.token });
  assert.is(res.status, 200);
  const names = res.body.filter((f: any) => f.source === 'desktop').map((f: any) => `${f.folder}/${f.name}`);
  assert.equal(names, ['Desktop/plain.txt']);
  const at = (path: string) => `/api/agents/${agent.id}/files/desktop?path=${encodeURIComponent(path)}`;
  for (const path of ['Desktop/secret.txt', 'Downloads/server-secret.txt', 'Desktop/pipe', 'Desktop/folder', 'Desktop/../../server-secret.txt',
    'Desktop/folder/../secret.txt', 'Documents/x.txt', '../server-secret.txt', 'Desktop/']) {
    const got = await download(at(path), owner.token);
    assert.ok(got.status === 404 || got.status === 422, `${path}: ${got.status}`);
    assert.not.match(got.text, /SERVER SECRET/);
  }
  assert.is((await download(`/api/agents/${agent.id}/files/desktop`, owner.token)).status, 422);
  assert.is((await download(at('Desktop/plain.txt'), owner.token)).text, 'plain');
});

const checkpointed = IS_ROOT ? files : files.skip;
checkpointed('a home this machine has no newest copy of is listed and read from the newest checkpoint', async () => {
  const { owner, agent } = await ownedAgent();
  const keep = server.parts.checkpoints;
  if (!keep) return void console.log('\n    SKIPPED: desktops are off here; no home is checkpointed.');
  await keep.homes.prepare(agent.id);
  plant(agent.id, { 'Desktop/kept.txt': 'from the checkpoint', 'Downloads/also.txt': 'also' });
  const account = keep.homes.account(agent.id);
  if (account) execFileSync('chown', ['-R', `${account.uid}:${account.gid}`, homeOf(agent.id)]);
  const stored = await keep.checkpoint(agent.id);
  assert.ok(stored.stored);
  // Another instance stored a newer generation (the same archive), and this machine's copy changed since: what it
  // lists now comes from the store.
  await server.parts.db.query(
    `INSERT INTO home_checkpoints (agent_id, generation, blob_key, bytes, home_bytes, fingerprint, sha256)
     SELECT agent_id, generation + 1, blob_key, bytes, home_bytes, fingerprint, sha256 FROM home_checkpoints WHERE agent_id = $1`, [agent.id]);
  rmSync(join(homeOf(agent.id), 'Desktop', 'kept.txt'));
  plant(agent.id, { 'Desktop/only-here.txt': 'older copy' });
  const res = await call(`/api/agents/${agent.id}/files`, { token: owner.token });
  const desktop = res.body.filter((f: any) => f.source === 'desktop').map((f: any) => `${f.folder}/${f.name}`).sort();
  assert.equal(desktop, ['Desktop/kept.txt', 'Downloads/also.txt']);
  const kept = res.body.find((f: any) => f.name === 'kept.txt');
  const got = await download(kept.url, owner.token);
  assert.is(got.status, 200);
  assert.is(got.text, 'from the checkpoint');
  assert.is(got.headers.get('content-length'), String('from the checkpoint'.length));
  assert.is((await download(kept.url, (await newUser('files-cp')).token)).status, 404);
});

files.run();
