import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../server/db/db.ts';

const init = suite('db: a new PGlite data directory');

init('is initialised by a child process, then opened, written and reopened by this one', async () => {
  if (process.env.TEST_DATABASE_URL) return; // PGlite only; this file has nothing to say about PostgreSQL
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-test-pginit-'));
  try {
    const db = await openDb({ dataDir });
    assert.ok(existsSync(join(dataDir, 'pg', 'PG_VERSION')));
    await db.query('CREATE TABLE kept (v text)');
    await db.query(`INSERT INTO kept VALUES ('still here')`);
    await db.close();
    const again = await openDb({ dataDir });
    assert.equal(await again.query('SELECT v FROM kept'), [{ v: 'still here' }]);
    await again.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

init.run();
