// Hot reads kept until the next write (server/db/read-cache.ts): on PGlite a value is answered again
// until any write finishes, then read anew; on PostgreSQL (other instances write too) every call reads.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cachedRead, mayWrite } from '../../server/db/read-cache.ts';
import { testServer } from './helpers.ts';

const cache = suite('read cache');

cache('a value is answered from memory until a write, then read again', async () => {
  const { services } = await testServer();
  const db = services.db;
  await db.query('CREATE TABLE IF NOT EXISTS read_cache_probe (n int)');
  await db.query('DELETE FROM read_cache_probe');
  let loads = 0;
  const count = cachedRead(async (q) => (loads++, (await q.query<{ c: number }>('SELECT count(*)::int AS c FROM read_cache_probe'))[0].c));
  assert.is(await count(db, 'probe'), 0);
  assert.is(await count(db, 'probe'), 0);
  const cached = db.engine === 'pglite';
  assert.is(loads, cached ? 1 : 2, cached ? 'PGlite: the second call came from memory' : 'PostgreSQL: every call reads');
  await db.query('INSERT INTO read_cache_probe VALUES (1)');
  assert.is(await count(db, 'probe'), 1, 'a write is seen at once');
  await db.tx(async (q) => void (await q.query('INSERT INTO read_cache_probe VALUES (2)')));
  assert.is(await count(db, 'probe'), 2, 'so is a transaction');
  await db.query('DROP TABLE read_cache_probe');
});

cache('keys are kept apart', async () => {
  const { services } = await testServer();
  const echo = cachedRead(async (_q, key) => `value of ${key}`);
  assert.is(await echo(services.db, 'a'), 'value of a');
  assert.is(await echo(services.db, 'b'), 'value of b');
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
