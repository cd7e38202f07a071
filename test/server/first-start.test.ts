// A newcomer's first `npm start` (issue 42): the real server says what it is doing before the slow part, keeps the
// generated admin password in a file only its user can read (a log scrolled past it loses nothing), and by default
// logs the changes and the failures but not the reads that went well (the pages poll every few seconds).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startMain } from './main-process.ts';

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

test.run();
