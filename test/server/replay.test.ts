// Runs and their replays (issue 44) on a real server and database, with fake desktops whose pixels change: every run
// gets a row and carries its id on its steps, messages and model calls; a run on a desktop is recorded (a Guacamole
// recording, gzip, served with Range and Content-Encoding); its markers; who may see it (owner, admin, a share
// link's holder; 404 for anyone else); links that expire and are revoked; a deleted thread takes its recordings.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GuacParser } from '../../server/desktop/view/codec.ts';
import type { Runner } from '../../server/runner/runner.ts';
import { filesDir } from '../../server/files/storage.ts';
import { adminToken, call, newAgent, newUser, testS3, testServer } from './helpers.ts';
import { scripted, swapRunner, text, toolUse, waitFor, type FakeDesktop } from './runner-helpers.ts';

const test = suite('replay');
let runner: Runner & { desktops: any };

/** Each action paints a band of the fake desktop: the recording has something to record. */
function painting(desktop: FakeDesktop) {
  const fb = { width: desktop.width, height: desktop.height, data: Buffer.alloc(desktop.width * desktop.height * 4, 255) };
  desktop.framebuffer = () => fb;
  desktop.on('action', () => {
    const y = (desktop.actions.length * 40) % desktop.height;
    fb.data.fill(desktop.actions.length * 37 % 256, y * fb.width * 4, (y + 20) * fb.width * 4);
    desktop.emit('update', [{ x: 0, y, w: fb.width, h: 20 }], []);
  });
}

async function setup() {
  const server = await testServer();
  if (runner) await runner.stop();
  // The server's instance (another test file in this process may have swapped its runner): its recordings prune
  // keeps to the runs it ran.
  const instanceId = server.parts.replays!.deps.instanceId();
  const provider = scripted([
    [text('Clicking.'), toolUse('c1', 'computer', { action: 'left_click', coordinate: [10, 10] })],
    [toolUse('c2', 'computer', { action: 'type', text: 'hello world' })],
    [toolUse('c3', 'computer', { action: 'type', text: 'Pa$$w0rd!x' })],
    [text('Done.')],
  ]);
  runner = await swapRunner({ provider, instanceId, recordRun: (run, desktop) => server.parts.runRecordings!.start(run, desktop) });
  const user = await newUser('replay');
  const agent = await newAgent(user.id);
  const desktop = (await runner.desktops.acquire(agent.id)) as FakeDesktop;
  painting(desktop);
  const created = await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'go' } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const threadId = created.body.id;
  await call(`/api/agents/${agent.id}/run-state`, { token: user.token, body: { state: 'run' } });
  const runs = await waitFor(async () => {
    const r = await call(`/api/threads/${threadId}/runs`, { token: user.token });
    return r.body.length && r.body[0].ended_at ? r.body : null;
  }, 20_000, 'the run to end');
  return { server, user, agent, threadId, runs };
}

test('a run has a row, its steps, messages and model calls carry its id, and its replay lists one marker per call and action', async () => {
  const { server, user, threadId, runs } = await setup();
  assert.is(runs.length, 1);
  const run = runs[0];
  assert.is(run.outcome, 'done');
  assert.is(run.has_replay, true);
  assert.ok(Math.abs(run.cost - 0.004) < 1e-9, `cost ${run.cost}`);
  const { db } = server.parts;
  const steps = await db.query<{ run_id: number | null }>('SELECT run_id FROM thread_steps WHERE thread_id = $1 AND user_text = $2', [threadId, '']);
  assert.ok(steps.length >= 4 && steps.every((s) => s.run_id === run.id));
  const traces = await db.query<{ run_id: number }>('SELECT run_id FROM llm_traces WHERE thread_id = $1', [threadId]);
  assert.is(traces.length, 4);
  assert.ok(traces.every((t) => t.run_id === run.id));
  const page = await call(`/api/threads/${threadId}/steps?limit=50&offset=0`, { token: user.token });
  assert.ok(page.body.steps.some((s: any) => s.run_id === run.id), 'the steps page says which run wrote each step');

  const replay = await call(`/api/runs/${run.id}/replay`, { token: user.token });
  assert.is(replay.status, 200);
  const r = replay.body;
  assert.is(r.run_id, run.id);
  assert.is(r.thread_id, threadId);
  assert.is(r.recording_url, `/api/runs/${run.id}/recording`);
  assert.ok(r.bytes > 0);
  assert.ok(r.duration_ms >= 0 && r.recording_offset_ms >= 0 && r.recording_offset_ms <= r.duration_ms);
  const kinds = (k: string) => r.markers.filter((m: any) => m.kind === k);
  assert.is(kinds('model_call').length, 4);
  assert.is(kinds('action').length, 3);
  assert.ok(r.markers.every((m: any, i: number) => i === 0 || m.at_ms >= r.markers[i - 1].at_ms), 'in time order');
  assert.ok(kinds('action').some((m: any) => m.label === 'type "hello world"'));
  assert.ok(!JSON.stringify(r.markers).includes('Pa$$w0rd'), 'typed secrets stay masked');

  // The detail of a model call is its trace; of an action, its tool call.
  const callIndex = r.markers.findIndex((m: any) => m.kind === 'model_call');
  const detail = await call(`/api/runs/${run.id}/replay/markers/${callIndex}`, { token: user.token });
  assert.is(detail.status, 200);
  assert.is(detail.body.detail.trace.id, r.markers[callIndex].ref_id);
  assert.is(detail.body.detail.trace.run_id, run.id);
  const secret = r.markers.findIndex((m: any) => m.kind === 'action' && m.label.startsWith('type "•'));
  const typed = await call(`/api/runs/${run.id}/replay/markers/${secret}`, { token: user.token });
  assert.is(typed.body.detail.input.text, '••••••••');
  assert.is((await call(`/api/runs/${run.id}/replay/markers/999`, { token: user.token })).status, 404);
});

test('the recording is a Guacamole session recording, gzip as stored, with Range', async () => {
  const { user, runs } = await setup();
  const { url } = await testServer();
  const path = `${url}/api/runs/${runs[0].id}/recording`;
  const auth = { Authorization: `Bearer ${user.token}` };
  // Node's fetch asks for gzip and unpacks it: what arrives is the recording's text.
  const whole = await fetch(path, { headers: auth });
  assert.is(whole.status, 200);
  assert.is(whole.headers.get('content-encoding'), 'gzip');
  const recording = await whole.text();
  const instructions = new GuacParser({ maxBuffer: 1 << 24 }).feed(recording);
  assert.is(instructions[0].opcode, 'size');
  assert.equal(instructions[0].args.slice(1), ['1280', '800']);
  const syncs = instructions.filter((i) => i.opcode === 'sync').map((i) => Number(i.args[0]));
  assert.ok(syncs.length >= 4, `a frame per action at least: ${syncs.length}: ${instructions.map((i) => i.opcode).join(' ')}`);
  assert.ok(syncs.every((t, i) => i === 0 || t > syncs[i - 1]), 'sync timestamps increase');
  assert.ok(instructions.some((i) => i.opcode === 'img' && i.args[3] === 'image/png'), 'PNG images');

  // The stored bytes, by range: 206 with Content-Range, and the pieces make the gzip file.
  const raw = (init: Record<string, string>) => new Promise<{ status: number; headers: any; body: Buffer }>((resolve, reject) => {
    import('node:http').then(({ get }) => get(path, { headers: { ...auth, ...init } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject));
  });
  const full = await raw({ 'Accept-Encoding': 'gzip' });
  const size = full.body.length;
  const first = await raw({ 'Accept-Encoding': 'gzip', Range: 'bytes=0-99' });
  const rest = await raw({ 'Accept-Encoding': 'gzip', Range: 'bytes=100-' });
  assert.is(first.status, 206);
  assert.is(first.headers['content-range'], `bytes 0-99/${size}`);
  assert.is(gunzipSync(Buffer.concat([first.body, rest.body])).toString(), recording);
  // Without gzip: the recording's own bytes, ranges of those.
  const plain = await raw({ Range: 'bytes=0-9' });
  assert.is(plain.status, 206);
  assert.is(plain.headers['content-encoding'], undefined);
  assert.is(plain.body.toString(), recording.slice(0, 10));
  assert.is(plain.headers['content-range'], `bytes 0-9/${Buffer.byteLength(recording)}`);
  assert.is((await raw({ 'Accept-Encoding': 'gzip', Range: `bytes=${size + 10}-` })).status, 416);
});

test('only the owner and admins see a run: 404 for anyone else, as for a run that does not exist', async () => {
  const { user, runs, threadId } = await setup();
  const stranger = await newUser('stranger');
  const id = runs[0].id;
  for (const path of [`/api/runs/${id}/replay`, `/api/runs/${id}/recording`, `/api/runs/${id}/replay/markers/0`, `/api/runs/${id}/replay/shares`]) {
    const r = await call(path, { token: stranger.token });
    assert.is(r.status, 404, path);
    assert.is(r.body.detail, 'Run not found');
  }
  assert.is((await call(`/api/runs/${id}/replay/share`, { token: stranger.token, body: {} })).status, 404);
  assert.is((await call(`/api/threads/${threadId}/runs`, { token: stranger.token })).status, 404);
  assert.is((await call(`/api/runs/999999/replay`, { token: user.token })).status, 404);
  assert.is((await call(`/api/runs/${id}/replay`)).status, 401);
  assert.is((await call(`/api/runs/${id}/replay`, { token: await adminToken() })).status, 200);
});

test('a share link opens the replay without sign-in, audited; revoked it is 404, expired 410', async () => {
  const { server, user, runs } = await setup();
  const id = runs[0].id;
  for (const bad of [60, 3599, 2592001, 'week', 1.5]) {
    assert.is((await call(`/api/runs/${id}/replay/share`, { token: user.token, body: { expires_in_s: bad } })).status, 422, String(bad));
  }
  const made = await call(`/api/runs/${id}/replay/share`, { token: user.token, body: {} });
  assert.is(made.status, 201);
  const days = (Date.parse(made.body.expires_at) - Date.now()) / 86400_000;
  assert.ok(days > 6.99 && days <= 7, 'seven days by default');
  const token = new URL(made.body.url).pathname.split('/').pop()!;
  assert.match(made.body.url, /\/replay\/shared\/[A-Za-z0-9_-]{43}$/);
  const opened = await call(`/api/replay-shares/by-token/${token}`);
  assert.is(opened.status, 200);
  assert.is(opened.body.run_id, id);
  assert.is(opened.body.can_share, false);
  assert.is(opened.body.shared.by, user.email);
  assert.is(opened.body.recording_url, `/api/replay-shares/by-token/${token}/recording`);
  assert.is((await call(opened.body.recording_url)).status, 200);
  assert.is((await call(`/api/replay-shares/by-token/${token}/markers/0`)).status, 200);
  const audit = await server.parts.db.query(`SELECT detail FROM audit_events WHERE action = 'replay.share_open' AND target_id = $1`, [String(id)]);
  assert.ok(audit.length >= 1);

  const list = await call(`/api/runs/${id}/replay/shares`, { token: user.token });
  assert.equal(list.body.map((s: any) => s.id), [made.body.id]);
  assert.is((await call(`/api/replay-shares/${made.body.id}`, { token: (await newUser('other')).token, method: 'DELETE' })).status, 404);
  assert.is((await call(`/api/replay-shares/${made.body.id}`, { token: user.token, method: 'DELETE' })).status, 204);
  assert.is((await call(`/api/replay-shares/by-token/${token}`)).status, 404);
  assert.is((await call(`/api/replay-shares/by-token/${token}/recording`)).status, 404);
  assert.equal((await call(`/api/runs/${id}/replay/shares`, { token: user.token })).body, []);

  const second = await call(`/api/runs/${id}/replay/share`, { token: user.token, body: { expires_in_s: 3600 } });
  const token2 = new URL(second.body.url).pathname.split('/').pop()!;
  await server.parts.db.query(`UPDATE replay_shares SET expires_at = now() - interval '1 second' WHERE id = $1`, [second.body.id]);
  const expired = await call(`/api/replay-shares/by-token/${token2}`);
  assert.is(expired.status, 410);
  assert.is(expired.body.detail, 'This link has expired');
  assert.is((await call(`/api/replay-shares/by-token/${'x'.repeat(43)}`)).status, 404);
});

test('deleting the thread deletes its runs and their recordings', async () => {
  const { server, user, agent, threadId, runs } = await setup();
  const [row] = await server.parts.db.query<{ recording_path: string }>('SELECT recording_path FROM runs WHERE id = $1', [runs[0].id]);
  const { blobs } = server.parts;
  assert.ok(await blobs.head(row.recording_path), 'the finished recording is in the store');
  const file = join(filesDir(server.parts.config.dataDir), row.recording_path);
  if (blobs.kind === 's3') assert.not.ok(existsSync(file), 'and no longer on this disk');
  assert.ok(row.recording_path.startsWith(`agent-${agent.id}/runs/thread-${threadId}/`));
  assert.is((await call(`/api/threads/${threadId}`, { token: user.token, method: 'DELETE' })).status, 204);
  await waitFor(async () => (await blobs.head(row.recording_path)) === null, 5000, 'the recording to go');
  assert.equal(await server.parts.db.query('SELECT id FROM runs WHERE id = $1', [runs[0].id]), []);
});

test('a recording counts against the agent storage quota, and one that outgrows it stops cleanly while the run goes on', async () => {
  const { server, user, agent, runs } = await setup();
  const usage = await server.parts.storage.usage(agent.id);
  const replay = (await call(`/api/runs/${runs[0].id}/replay`, { token: user.token })).body;
  assert.ok(replay.bytes > 0);
  assert.is(usage.used, replay.bytes, 'the recording is what the agent stores');
  // No room left at all: the next run is not recorded, and its thread says so.
  const config = server.parts.config;
  const before = config.agentStorageBytes;
  config.agentStorageBytes = usage.used;
  try {
    const next = await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'again' } });
    await call(`/api/agents/${agent.id}/run-state`, { token: user.token, body: { state: 'run' } });
    const run = await waitFor(async () => {
      const r = (await call(`/api/threads/${next.body.id}/runs`, { token: user.token })).body;
      return r[0]?.ended_at ? r[0] : null;
    }, 20_000, 'the second run');
    assert.is(run.outcome, 'done');
    assert.is(run.has_replay, false);
    const said = await server.parts.db.query<{ text: string }>(
      `SELECT assistant_data->>'text' AS text FROM chat_messages WHERE run_id = $1 AND role = 'warning'`, [run.id]);
    assert.match(said[0]?.text ?? '', /not recorded: the agent's storage is full/);
  } finally {
    config.agentStorageBytes = before;
  }
});

test('the recordings prune deletes old ones and is audited', async () => {
  const { server, runs } = await setup();
  const { db } = server.parts;
  const [row] = await db.query<{ recording_path: string }>('SELECT recording_path FROM runs WHERE id = $1', [runs[0].id]);
  const { blobs } = server.parts;
  assert.ok(await blobs.head(row.recording_path));
  await db.query(`UPDATE runs SET started_at = started_at - interval '31 days' WHERE id = $1`, [runs[0].id]);
  const removed = await server.parts.runRecordings!.prune(30);
  assert.ok(removed >= 1);
  assert.is(await blobs.head(row.recording_path), null, 'gone from the store');
  const [after] = await db.query<{ recording_path: string | null; recording_bytes: string }>(
    'SELECT recording_path, recording_bytes FROM runs WHERE id = $1', [runs[0].id]);
  assert.is(after.recording_path, null);
  assert.is(Number(after.recording_bytes), 0);
  const audit = await db.query(`SELECT detail FROM audit_events WHERE action = 'replay.prune' ORDER BY id DESC LIMIT 1`);
  assert.ok(audit[0].detail.deleted >= 1);
});

test('a recording the bucket does not take (S3 pass only) stays on the instance that made it, which plays it', async () => {
  if (!testS3) return; // with the local store the file is the stored object
  testS3.fault = { mode: 'error', when: (method, url) => method === 'PUT' && url.pathname.endsWith('.guac.gz') };
  let made: Awaited<ReturnType<typeof setup>>;
  try {
    made = await setup();
  } finally {
    testS3.fault = null;
  }
  const { server, user, runs } = made;
  const [row] = await server.parts.db.query<{ recording_path: string; recording_done: boolean }>(
    'SELECT recording_path, recording_done FROM runs WHERE id = $1', [runs[0].id]);
  assert.ok(row.recording_done);
  assert.is(await server.parts.blobs.head(row.recording_path), null, 'not in the bucket');
  assert.ok(existsSync(join(filesDir(server.parts.config.dataDir), row.recording_path)), 'kept on this disk');
  const res = await fetch(`${(await testServer()).url}/api/runs/${runs[0].id}/recording`, { headers: { Authorization: `Bearer ${user.token}` } });
  assert.is(res.status, 200);
  assert.ok((await res.text()).startsWith('4.size,'), 'the recording, from this disk');
});

test.after(async () => {
  await runner?.stop();
});

test.run();
