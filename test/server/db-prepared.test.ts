import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { prepared } from '../../server/db/db.ts';
import { testServer } from './helpers.ts';

const named = suite('db: named prepared statements');

const ECHO = prepared('test.echo', 'SELECT $1::int AS n, $2::text AS t, $3::jsonb AS j, $4::timestamptz AS at, $5::int[] AS ids');
const DIVIDE = prepared('test.divide', 'SELECT 10 / $1::int AS q');

named('parameters and results convert like plain queries, null included', async () => {
  const { db } = (await testServer()).parts;
  const at = new Date('2030-01-02T03:04:05.678Z');
  const [row] = await db.query(ECHO, [7, "it's", { a: [1, 'b'] }, at, [1, 2]]);
  assert.equal(row, await db.one(
    'SELECT $1::int AS n, $2::text AS t, $3::jsonb AS j, $4::timestamptz AS at, $5::int[] AS ids', [7, "it's", { a: [1, 'b'] }, at, [1, 2]]));
  assert.equal(row, { n: 7, t: "it's", j: { a: [1, 'b'] }, at, ids: [1, 2] });
  const [nulls] = await db.query(ECHO, [null, null, null, null, null]);
  assert.equal(nulls, { n: null, t: null, j: null, at: null, ids: null });
});

named('an error in one call leaves the statement and the connection usable', async () => {
  const { db } = (await testServer()).parts;
  assert.equal(await db.query(DIVIDE, [2]), [{ q: 5 }]);
  const err = await db.query(DIVIDE, [0]).catch((e) => e);
  assert.is(err.code, '22012'); // division_by_zero
  assert.equal(await db.query(DIVIDE, [5]), [{ q: 2 }]);
  assert.equal(await db.query('SELECT 1 AS one'), [{ one: 1 }]);
});

named('concurrent calls next to a transaction do not interleave with it', async () => {
  const { db } = (await testServer()).parts;
  const inside = db.tx(async (q) => {
    await q.query('CREATE TEMP TABLE prepared_probe (n int) ON COMMIT DROP');
    await q.query('INSERT INTO prepared_probe VALUES (1)');
    return (await q.query(DIVIDE, [1]))[0].q;
  });
  const outside = await Promise.all(Array.from({ length: 20 }, (_, i) => db.query(DIVIDE, [i + 1])));
  assert.is(await inside, 10);
  assert.equal(outside.map((r) => r[0].q), Array.from({ length: 20 }, (_, i) => Math.trunc(10 / (i + 1))));
});

named.run();
