// A newcomer's first `npm start` (issue 42): the real server says what it is doing before the slow part, keeps the
// generated admin password in a file only its user can read (a log scrolled past it loses nothing), and by default
// logs the changes and the failures but not the reads that went well (the pages poll every few seconds).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

test('the first start says what it does, keeps the admin password in a 0600 file, and leaves successful reads out of the log', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-first-start-'));
  const child = spawn(process.execPath, ['--import', './test/setup/register.mjs', 'server/main.ts'], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, STATIC_DIR: '', PORT: '0', SMTP_PORT: '0', DESKTOP_PROVIDER: 'none' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const look = () => {
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      };
      child.stdout.on('data', look);
      child.on('exit', () => reject(new Error(`the server stopped:\n${out}`)));
    });
    const lines = out.split('\n');
    const opening = lines.findIndex((l) => l.includes('is starting: opening the database'));
    const listening = lines.findIndex((l) => l.includes('listening on'));
    assert.ok(opening >= 0 && opening < listening, `a line before the database opens:\n${out}`);
    const password = /admin@localhost with password: (\S+)/.exec(out)?.[1];
    assert.ok(password, out);
    const file = join(dataDir, 'admin-password.txt');
    assert.is(readFileSync(file, 'utf8'), `admin@localhost\n${password}\n`);
    assert.is(statSync(file).mode & 0o777, 0o600);
    // The sign-in page learns that such a file is there (where, not what), and says so.
    assert.equal(await (await fetch(`${url}/api/auth/first-start`)).json(), { admin_password_file: true });

    assert.is((await fetch(`${url}/api/health`)).status, 200);
    const refused = await fetch(`${url}/api/auth/sign-in`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'admin@localhost', password: 'wrong one' }),
    });
    assert.is(refused.status, 401);
    const signedIn = await fetch(`${url}/api/auth/sign-in`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'admin@localhost', password }),
    });
    assert.is(signedIn.status, 200);
    // 'finish' may log just after the client has the answer: wait for the last line asked for.
    const deadline = Date.now() + 10_000;
    while (!out.includes('POST /api/auth/sign-in 200') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(out.includes('POST /api/auth/sign-in 401'), out);
    assert.ok(out.includes('POST /api/auth/sign-in 200'), out);
    assert.not.ok(out.includes('GET /api/health'), 'a read that went well is not logged');
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
