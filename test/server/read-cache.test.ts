// Hot reads kept while the data is unchanged (server/db/read-cache.ts): on PGlite until this process
// writes, on PostgreSQL until any commit moves the snapshot on. A write is always seen at once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cachedRead, mayWrite } from '../../server/db/read-cache.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';

const cache = suite('read cache');

cache('a value is answered from memory until a write, then read again', async () => {
  const { parts } = await testServer();
  const db = parts.db;
  await db.query('CREATE TABLE IF NOT EXISTS read_cache_probe (n int)');
  await db.query('DELETE FROM read_cache_probe');
  let loads = 0;
  const count = cachedRead(async (q) => (loads++, (await q.query<{ c: number }>('SELECT count(*)::int AS c FROM read_cache_probe'))[0].c));
  assert.is(await count(db, 'probe'), 0);
  // On PostgreSQL the other test processes' commits move the snapshot on too: some read has to come from memory.
  let fromMemory = 0;
  for (let i = 0; i < 50 && fromMemory === 0; i++) {
    const before = loads;
    assert.is(await count(db, 'probe'), 0);
    if (loads === before) fromMemory++;
  }
  assert.is(fromMemory, 1, 'an unchanged database answers from memory');
  await db.query('INSERT INTO read_cache_probe VALUES (1)');
  assert.is(await count(db, 'probe'), 1, 'a write is seen at once');
  await db.tx(async (q) => void (await q.query('INSERT INTO read_cache_probe VALUES (2)')));
  assert.is(await count(db, 'probe'), 2, 'so is a transaction');
  await db.query('DROP TABLE read_cache_probe');
});

cache('on PostgreSQL another connection\'s commit is seen at once', async () => {
  const { parts } = await testServer();
  const db = parts.db;
  if (db.engine !== 'postgres') return;
  await db.query('CREATE TABLE IF NOT EXISTS read_cache_other (n int)');
  await db.query('DELETE FROM read_cache_other');
  const count = cachedRead(async (q) => (await q.query<{ c: number }>('SELECT count(*)::int AS c FROM read_cache_other'))[0].c);
  // Another instance's write: a separate connection of its own, outside the server's pool.
  const { default: pg } = await import('pg');
  const { searchPath } = (await db.query<{ searchPath: string }>('SELECT current_setting(\'search_path\') AS "searchPath"'))[0];
  const other = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL, options: `-c search_path=${searchPath}` });
  await other.connect();
  try {
    for (let n = 1; n <= 20; n++) {
      await count(db, 'probe'); // an answer kept in memory, at the snapshot before the commit
      await other.query('INSERT INTO read_cache_other VALUES ($1)', [n]);
      assert.is(await count(db, 'probe'), n, 'the commit on the other connection is seen by the next read');
    }
    // Rows being written by an open transaction are not there yet; its commit is seen at once.
    await other.query('BEGIN');
    await other.query('INSERT INTO read_cache_other VALUES (0)');
    assert.is(await count(db, 'probe'), 20);
    await other.query('COMMIT');
    assert.is(await count(db, 'probe'), 21);
  } finally {
    await other.end();
    await db.query('DROP TABLE read_cache_other');
  }
});

cache('a GET answered from memory still shows what another connection committed before it came', async () => {
  const { parts } = await testServer();
  const db = parts.db;
  const user = await newUser('cache');
  const agent = await newAgent(user.id, 'Before');
  // On PostgreSQL the other connection stands for another instance; on PGlite it is the same process.
  const other = db.engine === 'postgres' ? await otherConnection(db) : { query: (t: string, p: unknown[]) => db.query(t, p), end: async () => {} };
  try {
    for (let n = 1; n <= 15; n++) {
      const before = await call('/api/agents/', { token: user.token });
      assert.is(before.status, 200);
      const again = await call('/api/agents/', { token: user.token, headers: { 'If-None-Match': before.headers.get('etag')! } });
      assert.is(again.status, 304, 'unchanged: the client\'s copy holds');
      await other.query('UPDATE agents SET name = $2 WHERE id = $1', [agent.id, `Renamed ${n}`]);
      const after = await call('/api/agents/', { token: user.token, headers: { 'If-None-Match': before.headers.get('etag')! } });
      assert.is(after.status, 200, 'the list changed: no 304');
      assert.is(after.body.find((a: { id: number }) => a.id === agent.id)?.name, `Renamed ${n}`);
      const one = await call(`/api/agents/${agent.id}`, { token: user.token });
      assert.is(one.body.name, `Renamed ${n}`);
    }
  } finally {
    await other.end();
  }
});

async function otherConnection(db: { query: (t: string) => Promise<{ searchPath: string }[]> }) {
  const { default: pg } = await import('pg');
  const [{ searchPath }] = await db.query('SELECT current_setting(\'search_path\') AS "searchPath"');
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL, options: `-c search_path=${searchPath}` });
  await client.connect();
  return client;
}

cache('keys are kept apart', async () => {
  const { parts } = await testServer();
  const echo = cachedRead(async (_q, key) => `value of ${key}`);
  assert.is(await echo(parts.db, 'a'), 'value of a');
  assert.is(await echo(parts.db, 'b'), 'value of b');
});

cache('plain reads are told from statements that may write', () => {
  assert.not.ok(mayWrite('SELECT id FROM agents WHERE owner_id = $1'));
  assert.not.ok(mayWrite('  with x as (select 1) select * from x'));
  assert.ok(mayWrite('UPDATE agents SET name = $2 WHERE id = $1'));
  assert.ok(mayWrite('WITH moved AS (DELETE FROM a RETURNING *) SELECT * FROM moved'));
  assert.ok(mayWrite('SELECT id FROM threads WHERE id = $1 FOR UPDATE'), 'a locking read counts, to be safe');
  assert.ok(mayWrite("SELECT nextval('s')"));
  assert.ok(mayWrite('BEGIN'));
});

cache.run();
