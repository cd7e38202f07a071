// A newcomer's first `npm start` (issue 42): the real server says what it is doing before the slow part, keeps the
// generated admin password in a file only its user can read (a log scrolled past it loses nothing), and by default
// logs the changes and the failures but not the reads that went well (the pages poll every few seconds).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openDb } from '../../server/db/db.ts';
import { startMain, type MainProcess } from './main-process.ts';

test('the first start says what it does, keeps the admin password in a 0600 file, and leaves successful reads out of the log', async () => {
  const server = startMain({ DESKTOP_PROVIDER: 'none' });
  try {
    const url = await server.listening;
    const lines = server.output().split('\n');
    const opening = lines.findIndex((l) => l.includes('is starting: opening the database'));
    const listening = lines.findIndex((l) => l.includes('listening on'));
    assert.ok(opening >= 0 && opening < listening, `a line before the database opens:\n${server.output()}`);
    const password = /admin@localhost with password: (\S+)/.exec(server.output())?.[1];
    assert.ok(password, server.output());
    const file = join(server.dataDir, 'admin-password.txt');
    assert.is(readFileSync(file, 'utf8'), `admin@localhost\n${password}\n`);
    assert.is(statSync(file).mode & 0o777, 0o600);
    // The sign-in page learns that such a file is there (where, not what), and says so.
    assert.is((await (await fetch(`${url}/api/auth/first-start`)).json()).admin_password_file, true);

    assert.is((await fetch(`${url}/api/health`)).status, 200);
    const signIn = (body: object) => fetch(`${url}/api/auth/sign-in`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    assert.is((await signIn({ email: 'admin@localhost', password: 'wrong one' })).status, 401);
    assert.is((await signIn({ email: 'admin@localhost', password })).status, 200);
    // 'finish' may log just after the client has the answer: wait for the last line asked for.
    await server.said(/POST \/api\/auth\/sign-in 200/, 10_000);
    assert.ok(server.output().includes('POST /api/auth/sign-in 401'), server.output());
    assert.not.ok(server.output().includes('GET /api/health'), 'a read that went well is not logged');
  } finally {
    await server.remove();
  }
});

test('a DATA_DIR that does not exist yet is made at start, also with PostgreSQL, and uploads land in it', async () => {
  // On PostgreSQL (TEST_DATABASE_URL) nothing else makes the folder: uploads answered 500 (issue 43).
  const url = process.env.TEST_DATABASE_URL;
  const schema = `test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = url ? await openDb({ databaseUrl: url }) : null;
  await admin?.query(`CREATE SCHEMA ${schema}`);
  const ADMIN = { email: 'admin@data-dir.test', password: 'correct horse battery' };
  const env: Record<string, string> = {
    DESKTOP_PROVIDER: 'none', SECRETS_KEY: randomBytes(32).toString('base64'), ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password,
  };
  if (url) env.DATABASE_URL = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const server = startMain(env, { dataDir: (made) => join(made, 'not', 'yet') });
  try {
    const base = await server.listening;
    assert.is(statSync(server.dataDir).mode & 0o777, 0o700);
    const call = (path: string, init: RequestInit = {}, token?: string) => fetch(base + path, {
      ...init,
      headers: { ...(init.body instanceof FormData ? {} : { 'Content-Type': 'application/json' }), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    });
    const { token } = await (await call('/api/auth/sign-in', { method: 'POST', body: JSON.stringify(ADMIN) })).json();
    const agent = await (await call('/api/agents/', { method: 'POST', body: JSON.stringify({ name: 'Uploads' }) }, token)).json();
    const form = new FormData();
    form.append('file', new Blob(['hello']), 'note.txt');
    const res = await call(`/api/agents/${agent.id}/upload_file`, { method: 'POST', body: form }, token);
    assert.is(res.status, 200, await res.clone().text());
    assert.ok(existsSync(join(server.dataDir, 'files', (await res.json()).file_path)), 'the file is kept in DATA_DIR');
  } finally {
    await server.remove();
    await admin?.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
  }
});

test('a DATA_DIR that cannot be made stops the start with a line that names it', async () => {
  const server = startMain({ DESKTOP_PROVIDER: 'none' }, { dataDir: (made) => (writeFileSync(join(made, 'a-file'), ''), join(made, 'a-file', 'data')) });
  try {
    assert.is(await server.exited, 1);
    assert.match(server.output(), /^Agent Workspace cannot start: DATA_DIR \S+\/a-file\/data cannot be made/m);
  } finally {
    await server.remove();
  }
});

test('the vault key: another VAULT_KEY stops the start with one line; with the old one as VAULT_KEY_PREVIOUS it rewraps', async () => {
  const [oldKey, newKey] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
  const ADMIN = { email: 'admin@vault-key.test', password: 'correct horse battery' };
  const base = { DESKTOP_PROVIDER: 'none', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password };
  const first = startMain({ ...base, VAULT_KEY: oldKey });
  const again = (env: Record<string, string>) => startMain({ ...base, ...env }, { dataDir: () => first.dataDir });
  const started: MainProcess[] = [first];
  try {
    const url = await first.listening;
    const json = { 'Content-Type': 'application/json' };
    const { token } = await (await fetch(`${url}/api/auth/sign-in`, { method: 'POST', headers: json, body: JSON.stringify(ADMIN) })).json();
    const made = await fetch(`${url}/api/credentials`, {
      method: 'POST', headers: { ...json, Authorization: `Bearer ${token}` }, body: JSON.stringify({ name: 'Shop', username: 'ann', password: 'pw' }),
    });
    assert.is(made.status, 201);
    first.child.kill('SIGTERM');
    await first.exited;
    const wrong = again({ VAULT_KEY: newKey });
    started.push(wrong);
    assert.is(await wrong.exited, 1);
    assert.match(wrong.output(), /^Agent Workspace cannot start: the vault key \(VAULT_KEY\) does not open the credential vault/m);
    const rotated = again({ VAULT_KEY: newKey, VAULT_KEY_PREVIOUS: oldKey });
    started.push(rotated);
    await rotated.listening;
    assert.match(rotated.output(), /vault: 2 values rewrapped under the new VAULT_KEY/);
  } finally {
    for (const server of started.reverse()) {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
      await server.exited;
    }
    await first.remove();
  }
});

test.run();
