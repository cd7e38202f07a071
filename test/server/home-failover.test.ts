// Homes that follow the desktop across instances (issue 50), on PostgreSQL with two real server processes sharing
// the database and one store folder (A's DATA_DIR/files/homes, which B's links to: the stand-in for a shared
// bucket). The desktop starts on A and falls asleep, which checkpoints its home; B, which has no copy of the home,
// lists and serves the desktop's files from A's home through signed calls to A while A holds the desktop; then A
// is killed with -9 (it checkpoints nothing then), and the desktop B starts restores the home A last checkpointed
// before any of its programs runs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { api, fleetUnavailable, homeFile, ok, STALE_SECONDS, startFleet, until, view, type Fleet } from './fleet-helpers.ts';
import { ADMIN } from './helpers.ts';

const failover = suite('home failover');
const unavailable = await fleetUnavailable();
const test = unavailable ? failover.skip : failover;
const s = {} as { f?: Fleet; token: string; agent: number };

failover.before(async () => {
  if (unavailable) return void console.log(`\n    SKIPPED: ${unavailable}; homes across instances were not tested.`);
  s.f = await startFleet({ DESKTOP_IDLE_SLEEP_S: '1' });
  // One store for both, as a bucket would be: B's homes folder is A's (nothing is stored before the first sleep).
  mkdirSync(join(s.f.a.dataDir, 'files', 'homes'), { recursive: true });
  mkdirSync(join(s.f.b.dataDir, 'files'), { recursive: true });
  symlinkSync(join(s.f.a.dataDir, 'files', 'homes'), join(s.f.b.dataDir, 'files', 'homes'));
  s.token = (await ok(s.f.a.url, '/api/auth/sign-in', { body: ADMIN })).token;
  s.agent = (await ok(s.f.a.url, '/api/agents/', { token: s.token, body: { name: 'Home failover agent' } })).id;
});

failover.after(async () => {
  await s.f?.close();
});

test('kill -9 of A: the desktop starts on B with the home A checkpointed when it fell asleep', async () => {
  const { a, b, db } = s.f!;
  // A file the user drops lands on the desktop's ~/Desktop (written there as the agent).
  const form = new FormData();
  form.append('file', new Blob(['written before the failover']), 'kept.txt');
  const res = await fetch(`${a.url}/api/agents/${s.agent}/upload_file`, { method: 'POST', headers: { Authorization: `Bearer ${s.token}` }, body: form });
  assert.is(res.status, 200);
  // The desktop starts on A for a viewer, who then leaves.
  (await view(a.url, s.token, s.agent)).viewer.close();
  await until(() => homeFile(a, s.agent, 'Desktop/kept.txt'), 20_000, 'the file on the desktop on A');

  // Left alone, it falls asleep, and its home is checkpointed.
  const row = await until(async () => (await db.query(
    'SELECT generation, instance_id, home_bytes::int AS home_bytes FROM home_checkpoints WHERE agent_id = $1', [s.agent]))[0], 30_000,
  'a checkpoint of the sleeping desktop\'s home', 200);
  assert.is(row.generation, 1);
  assert.ok(row.home_bytes >= 'written before the failover'.length);

  // B has no copy of the home: it lists and serves the desktop's files (asking A, which holds the desktop).
  const files = (await ok(b.url, `/api/agents/${s.agent}/files`, { token: s.token })) as any[];
  const kept = files.find((f) => f.source === 'desktop' && f.name === 'kept.txt');
  assert.ok(kept, JSON.stringify(files));
  const fromB = await fetch(b.url + kept.url, { headers: { Authorization: `Bearer ${s.token}` } });
  assert.is(await fromB.text(), 'written before the failover');

  // While A holds the desktop, B asks A for its home's files: one A's home got after the checkpoint is listed and served.
  const live = join(a.dataDir, 'desktops', `agent-${s.agent}`, 'Downloads', 'live-on-a.txt');
  mkdirSync(join(live, '..'), { recursive: true });
  writeFileSync(live, 'only in the home on A');
  execFileSync('chown', ['-R', `${a.uidBase + s.agent}:${a.uidBase + s.agent}`, join(live, '..')]);
  const listed = (await ok(b.url, `/api/agents/${s.agent}/files`, { token: s.token })) as any[];
  const onA = listed.find((f) => f.name === 'live-on-a.txt');
  assert.ok(onA, JSON.stringify(listed));
  const throughA = await fetch(b.url + onA.url, { headers: { Authorization: `Bearer ${s.token}` } });
  assert.is(throughA.status, 200);
  assert.is(throughA.headers.get('content-disposition'), `attachment; filename="live-on-a.txt"; filename*=UTF-8''live-on-a.txt`);
  assert.is(await throughA.text(), 'only in the home on A');

  a.child.kill('SIGKILL');
  await until(() => a.child.exitCode !== null || a.child.signalCode !== null, 10_000, 'A to die');
  const onB = await until(() => view(b.url, s.token, s.agent).catch(() => null), (STALE_SECONDS + 30) * 1000, 'the desktop through B', 500);
  onB.viewer.close();
  const [lease] = await db.query<{ pid: number }>('SELECT pid FROM desktop_leases WHERE agent_id = $1', [s.agent]);
  assert.is(lease.pid, b.child.pid, 'B runs the desktop now');
  assert.is(homeFile(b, s.agent, 'Desktop/kept.txt'), 'written before the failover', 'the home A checkpointed, on B');
  assert.is(readFileSync(join(b.dataDir, 'desktops', `agent-${s.agent}.generation`), 'utf8'), '1');
  // And B serves it from its own copy now.
  const again = await api(b.url, `/api/agents/${s.agent}/files`, { token: s.token });
  assert.ok(again.body.some((f: any) => f.source === 'desktop' && f.name === 'kept.txt'));
});

failover.run();
