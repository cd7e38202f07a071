// A full disk (issue 20): the real server (a child process) on an 80 MB tmpfs as DATA_DIR. Uploads of 8 MB
// fill it until they are refused with 507 (the process stays up; before the fix an ENOSPC 'error' event ended
// it), the log warns once, and the database keeps its reserve. Then the disk is filled to the last byte: a
// recording's audio gets 507 from the write itself (nothing left behind), a message write gets 503 with a
// detail that says the database cannot write, and reads go on working. Once space is freed, writes work again
// without a restart, and everything acknowledged before is still there.
// PGlite lives in DATA_DIR/pg, so the full tmpfs is its disk too. On the PostgreSQL pass the database is not on
// the tmpfs: there it is made read-only for that step (SQLSTATE 25006), which the server answers the same way.
// Mounting needs root (CI runs as root): without it the test says so, and fails on CI.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openDb, type Db } from '../../server/db/db.ts';
import { IS_ROOT, smallDisk, spawnServer, until } from './fault-helpers.ts';
import { ADMIN } from './helpers.ts';

const MB = 1024 * 1024;
const full = suite('faults: a full disk');

type Reply = { status: number; body: any };

async function api(base: string, path: string, init: { token?: string; body?: unknown; raw?: BodyInit; headers?: Record<string, string> } = {}) {
  const res = await fetch(base + path, {
    method: init.body !== undefined || init.raw !== undefined ? 'POST' : 'GET',
    headers: {
      ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : init.raw,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, body } as Reply;
}

async function ok(base: string, path: string, init: Parameters<typeof api>[2] = {}) {
  const res = await api(base, path, init);
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Writes a file of `bytes` (all of what is free when Infinity) into dir, as another program would; its path. */
function ballast(dir: string, name: string, bytes: number): string {
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(MB, 1);
  let left = bytes;
  try {
    for (const size of [MB, 4096, 1]) {
      while (left >= size) {
        writeSync(fd, chunk, 0, size);
        left -= size;
      }
    }
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOSPC' || bytes !== Infinity) throw err;
    // Down to single bytes, so that not a block is left.
    try {
      for (;;) writeSync(fd, chunk, 0, 1);
    } catch {}
  } finally {
    closeSync(fd);
  }
  return path;
}

/** Files under dir whose names mark an unfinished write (an upload's partial, audio's .partial, a .tmp). */
function partials(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /^\.upload$|\.partial$|\.tmp$/.test(e.name))
    .map((e) => join(e.parentPath ?? (e as any).path, e.name));
}

const OUT_OF_SPACE = 'Not enough storage space on the server';

if (!IS_ROOT) {
  console.log('  ⚠ the full-disk fault test needs root: it mounts an 80 MB tmpfs as DATA_DIR (mount -t tmpfs), which only root may do; skipped');
  if (process.env.CI) full('runs as root to mount a small disk', () => assert.unreachable('the full-disk fault test cannot mount its tmpfs without root'));
} else {
  full('uploads get 507 and the server stays up; a message write gets 503 with its detail while reads work; ' +
    'freed space brings writes back with nothing lost', async () => {
    const disk = await smallDisk(80);
    const pgUrl = process.env.TEST_DATABASE_URL;
    const dbName = `aw_fault_disk_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
    let admin: Db | null = null;
    if (pgUrl) {
      admin = await openDb({ databaseUrl: pgUrl });
      await admin.query(`CREATE DATABASE ${dbName}`);
    }
    /** PostgreSQL pass: the database stops (or starts again) taking writes; its open connections are cut to see it. */
    const readOnly = async (on: boolean) => {
      await admin!.query(`ALTER DATABASE ${dbName} SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
      await admin!.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
    };
    const server = await spawnServer({
      DATA_DIR: disk.dir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, DISK_RESERVE_MB: '8', AGENT_STORAGE_MB: '1000',
      DATABASE_URL: pgUrl ? pgUrl.replace(/\/[^/]*$/, `/${dbName}`) : '',
    });
    const alive = () => assert.is(server.child.exitCode, null, `the server exited: ${server.output().slice(-2000)}`);
    const warnings = () => server.output().split('disk space low').length - 1;
    try {
      const { url } = server;
      const token = (await ok(url, '/api/auth/sign-in', { body: ADMIN })).token;
      const agent = await ok(url, '/api/agents/', { token, body: { name: 'Disk agent' } });
      const thread = await ok(url, `/api/threads/${agent.id}/create-new-thread`, { token, body: { user_text: 'written first' } });
      const acknowledged = ['written first'];
      const write = (text: string) => api(url, `/api/threads/${thread.id}/set-user-input`, { token, body: { user_text: text } });
      const upload = (bytes: number) => {
        const form = new FormData();
        form.append('file', new Blob([randomBytes(bytes)]), `part-${randomUUID().slice(0, 8)}.bin`);
        return api(url, `/api/agents/${agent.id}/upload_file`, { token, raw: form });
      };
      // A recording stopped now takes its audio once the disk is full (audio is not held to the reserve).
      const session = (await ok(url, '/api/screenshare/start-recording', { token, body: { agent_id: agent.id } })).session_id;
      await ok(url, '/api/screenshare/stop-recording', { token, body: { agent_id: agent.id } });
      // Something else on the machine already took part of the disk.
      const other = ballast(disk.dir, 'other-program.bin', 16 * MB);

      // 1. Uploads of 8 MB until the disk is down to its reserve: 507, and the server is still here.
      const kept: string[] = [];
      let refused: Reply | null = null;
      for (let i = 0; i < 12 && !refused; i++) {
        const res = await upload(8 * MB);
        if (res.status === 200) kept.push(res.body.file_path);
        else refused = res;
      }
      alive();
      assert.ok(refused, 'an upload was refused');
      assert.equal(refused, { status: 507, body: { detail: OUT_OF_SPACE } });
      assert.ok(kept.length >= 1, `uploads before the disk filled: ${kept.length}`);
      assert.equal(partials(join(disk.dir, 'files')), [], 'no partial file left');
      assert.is((await upload(8 * MB)).status, 507);
      assert.is((await upload(MB)).status, 507, 'nothing new below the reserve');
      assert.is(warnings(), 1, 'the log warned once');
      const metrics = (await api(url, '/api/metrics', { token })).body as string;
      const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
      assert.ok(gauge('aw_data_dir_free_bytes') < gauge('aw_data_dir_reserve_bytes'), metrics.split('\n').filter((l) => l.startsWith('aw_data')).join('\n'));
      assert.is(gauge('aw_data_dir_reserve_bytes'), 8 * MB);
      assert.ok((await ok(url, '/api/admin/storage', { token })).low);
      // The reserve kept room for the database.
      assert.is((await write('written at the reserve')).status, 200);
      acknowledged.push('written at the reserve');

      // 2. The disk filled to the last byte by someone else.
      const filler = ballast(disk.dir, 'filler.bin', Infinity);
      assert.is(disk.free(), 0);
      const audio = await api(url, '/api/screenshare/audio-final', {
        token, raw: randomBytes(2 * MB), headers: { 'X-Session-Id': session, 'Content-Type': 'audio/ogg' },
      });
      assert.equal(audio, { status: 507, body: { detail: OUT_OF_SPACE } });
      assert.equal(partials(join(disk.dir, 'files')), [], 'the partial audio was removed');
      if (pgUrl) await readOnly(true);
      let cannot: Reply | null = null;
      for (let i = 0; i < 300 && !cannot; i++) {
        const text = `filling ${i} ${randomBytes(16 * 1024).toString('base64')}`;
        const res = await write(text);
        if (res.status === 200) acknowledged.push(text);
        else if (res.status === 503 && /cannot write/.test(res.body?.detail)) cannot = res;
        else if (res.status !== 503) assert.unreachable(`a write answered ${res.status} ${JSON.stringify(res.body)}`);
      }
      alive();
      assert.ok(cannot, 'a message write was refused');
      assert.is(cannot!.body.detail, pgUrl
        ? 'The database cannot write right now: it is read-only'
        : 'The database cannot write right now: the server is out of disk space');
      // Reads go on.
      const during = await until(async () => {
        const res = await api(url, `/api/threads/${thread.id}/steps?limit=1000`, { token });
        return res.status === 200 ? res.body : null;
      }, 20_000, 'the steps to be readable');
      assert.ok(during.steps.length >= acknowledged.length);
      assert.is((await api(url, `/api/agents/${agent.id}`, { token })).status, 200);
      assert.is((await upload(MB)).status, 507);
      alive();

      // 3. Space freed: writes work again without a restart, and every earlier step is kept.
      unlinkSync(filler);
      unlinkSync(other);
      if (pgUrl) await readOnly(false);
      await until(async () => (await write('written after the disk was freed')).status === 200, 30_000, 'a message write to succeed again', 250);
      acknowledged.push('written after the disk was freed');
      const { steps } = await ok(url, `/api/threads/${thread.id}/steps?limit=1000`, { token });
      const stored = new Set(steps.map((s: any) => s.user_text));
      const lost = acknowledged.filter((t) => !stored.has(t));
      assert.equal(lost, [], `${lost.length} of ${acknowledged.length} acknowledged messages lost`);
      for (const path of kept) assert.ok(existsSync(join(disk.dir, 'files', path)), `${path} kept`);
      const again = await upload(MB);
      assert.is(again.status, 200, JSON.stringify(again.body));
      assert.match(server.output(), 'disk space recovered');
      assert.is(warnings(), 1);
      assert.is((await api(url, '/api/screenshare/audio-final', {
        token, raw: randomBytes(MB), headers: { 'X-Session-Id': session, 'Content-Type': 'audio/ogg' },
      })).status, 202, 'the recording still takes its audio');
      alive();
    } finally {
      server.child.kill('SIGTERM');
      await until(() => server.child.exitCode !== null || server.child.signalCode !== null, 15_000, 'the server to stop')
        .catch(() => server.child.kill('SIGKILL'));
      await until(() => server.child.exitCode !== null || server.child.signalCode !== null, 5000, 'the server to be gone').catch(() => {});
      if (admin) {
        await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
        await admin.close();
      }
      await disk.close();
    }
  });
}

full.run();
