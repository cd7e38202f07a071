// The embedded database runs in a worker thread (issue 43): while PGlite works through a long statement, this
// thread goes on answering (timers fire, requests are read); its errors still carry PostgreSQL's fields; a
// transaction is all or nothing, and statements outside it wait for its end. Its shared memory is sized for the
// idle memory budget (issue 48).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDb } from '../../server/db/db.ts';

test('a long PGlite statement does not hold up this thread: its timers keep firing meanwhile', async () => {
  const db = await openDb({ dataDir: null });
  try {
    await db.query('SELECT 1');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const started = performance.now();
    // A few hundred ms of work inside the database: in this thread it would block every timer until it ended.
    await db.query('SELECT count(*) FROM generate_series(1, 3000000) AS g WHERE g % 7 = 3');
    const took = performance.now() - started;
    clearInterval(timer);
    assert.ok(took > 100, `the statement took ${took.toFixed(0)} ms: too short to tell`);
    assert.ok(ticks >= 3, `${ticks} timer ticks in ${took.toFixed(0)} ms of SQL`);
  } finally {
    await db.close();
  }
});

test('errors keep PostgreSQL\'s code; a transaction that throws leaves nothing, one that returns keeps all', async () => {
  const db = await openDb({ dataDir: null });
  try {
    await db.query('CREATE TABLE t (id int PRIMARY KEY, v text)');
    await db.query(`INSERT INTO t VALUES (1, 'a')`);
    const err = await db.query(`INSERT INTO t VALUES (1, 'b')`).then(() => null, (e) => e);
    assert.is(err?.code, '23505', `a unique violation: ${err?.message}`);
    assert.match(err.message, /duplicate key/);
    await db.tx(async (q) => {
      await q.query(`INSERT INTO t VALUES (2, 'b')`);
      throw new Error('changed my mind');
    }).then(() => assert.unreachable(), (e) => assert.is(e.message, 'changed my mind'));
    const { outside } = await db.tx(async (q) => {
      await q.query(`INSERT INTO t VALUES (3, 'c')`);
      // Outside the transaction: waits for its end, then sees its rows.
      const read = db.query('SELECT count(*)::int AS n FROM t');
      await q.query(`INSERT INTO t VALUES (4, 'd')`);
      return { outside: read };
    });
    assert.equal(await outside, [{ n: 3 }]);
    assert.equal((await db.query('SELECT id FROM t ORDER BY id')).map((r) => r.id), [1, 3, 4]);
  } finally {
    await db.close();
  }
});

test('PGlite runs with 32 MB of shared buffers (not initdb\'s 128 MB) and its own durability settings', async () => {
  const db = await openDb({ dataDir: null });
  try {
    const settings = await db.query<{ name: string; setting: string }>(
      `SELECT name, current_setting(name) AS setting FROM unnest(array['shared_buffers', 'shared_memory_size', 'fsync']) AS name`);
    const got = Object.fromEntries(settings.map((r) => [r.name, r.setting]));
    assert.is(got.shared_buffers, '32MB');
    assert.ok(parseInt(got.shared_memory_size, 10) < 64, `shared memory ${got.shared_memory_size}`);
    assert.is(got.fsync, 'off', 'PGlite starts with -F; unchanged here');
  } finally {
    await db.close();
  }
});

test.run();
