// What grows with use (issue 43): PGlite runs no autovacuum, so the server vacuums its tables on a timer, choosing
// them as autovacuum would; and the hot agents row is not rewritten when what it says has not changed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDb } from '../../server/db/db.ts';
import { migrate } from '../../server/migrations.ts';
import { tablesToVacuum, vacuumRound } from '../../server/db/vacuum.ts';
import { refreshAgentState } from '../../server/runner/claim.ts';
import { emptyDb } from './db-helpers.ts';

test('on PGlite, a vacuum round clears the dead rows of the tables over the threshold and leaves the others', async () => {
  const db = await openDb({ dataDir: null }); // the embedded engine whatever this pass's database: it is the one without autovacuum
  try {
    await migrate(db);
    const [user] = await db.query(`INSERT INTO users (email) VALUES ('churn@example.test') RETURNING id`);
    const [agent] = await db.query(`INSERT INTO agents (owner_id, name) VALUES ($1, 'Churn') RETURNING id`, [user.id]);
    // Rows made and deleted, as the spend reservations of every model call are: each delete leaves a dead row.
    for (let i = 0; i < 5; i++) {
      await db.query(`INSERT INTO chat_messages (agent_id, role) SELECT $1, 'user' FROM generate_series(1, 100)`, [agent.id]);
      await db.query('DELETE FROM chat_messages WHERE agent_id = $1', [agent.id]);
    }
    const before = await tablesToVacuum(db);
    assert.ok(before.some((t) => t.table === 'chat_messages' && t.dead >= 400), JSON.stringify(before));
    assert.not.ok(before.some((t) => t.table === 'users'), 'one dead-free row of users is under the threshold');
    assert.ok((await vacuumRound(db)).includes('chat_messages'));
    assert.equal(await tablesToVacuum(db), [], 'nothing over the threshold after the round');
    const [{ dead }] = await db.query(
      `SELECT n_dead_tup::int AS dead FROM pg_stat_user_tables WHERE relname = 'chat_messages' AND schemaname = current_schema()`);
    assert.is(dead, 0);
    assert.equal(await vacuumRound(db), [], 'a round with nothing to do vacuums nothing');
  } finally {
    await db.close();
  }
});

test('on PGlite, a table that only grows is analyzed once enough rows came, so its statistics are not those of its first rows', async () => {
  const db = await openDb({ dataDir: null });
  try {
    await migrate(db);
    await vacuumRound(db); // what the migrations wrote
    const [user] = await db.query(`INSERT INTO users (email) VALUES ('growth@example.test') RETURNING id`);
    const [agent] = await db.query(`INSERT INTO agents (owner_id, name) VALUES ($1, 'Growth') RETURNING id`, [user.id]);
    await db.query(`INSERT INTO chat_messages (agent_id, role) SELECT $1, 'user' FROM generate_series(1, 2000)`, [agent.id]);
    const analyzed = async () => (await db.query(
      `SELECT analyze_count::int AS n FROM pg_stat_user_tables WHERE relname = 'chat_messages' AND schemaname = current_schema()`))[0].n;
    const before = await analyzed();
    assert.equal(await tablesToVacuum(db), [], 'no dead rows: nothing to vacuum');
    assert.ok((await vacuumRound(db)).includes('chat_messages'), 'analyzed without a dead row');
    assert.is(await analyzed(), before + 1);
    const [{ estimate }] = await db.query(`SELECT reltuples::int AS estimate FROM pg_class WHERE oid = 'chat_messages'::regclass`);
    assert.is(estimate, 2000, "the planner's row count");
    assert.not.ok((await vacuumRound(db)).includes('chat_messages'), 'not again while nothing changed');
  } finally {
    await db.close();
  }
});

test('refreshing an agent\'s running state that is already right does not rewrite its row', async () => {
  const { db, drop } = await emptyDb('dead');
  try {
    await migrate(db);
    const [user] = await db.query(`INSERT INTO users (email) VALUES ('idle@example.test') RETURNING id`);
    const [agent] = await db.query(
      `INSERT INTO agents (owner_id, name, agent_running, running_state) VALUES ($1, 'Idle', true, 'running') RETURNING id`, [user.id]);
    // xmin is the transaction that wrote the row's current version: an UPDATE, even to the same values, changes it.
    const version = async () => (await db.query('SELECT xmin::text AS v, running_state FROM agents WHERE id = $1', [agent.id]))[0];
    await refreshAgentState(db, agent.id);
    const idle = await version();
    assert.is(idle.running_state, 'idle', 'nothing runs: the row says so');
    await refreshAgentState(db, agent.id);
    await refreshAgentState(db, agent.id);
    assert.equal(await version(), idle, 'the same row version: not rewritten');
  } finally {
    await drop();
  }
});

test.run();
