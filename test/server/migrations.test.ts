import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate, MIGRATIONS } from '../../server/migrations.ts';
import { emptyDb, migrateBefore } from './db-helpers.ts';

const migrations = suite('db migrations');

migrations('every foreign key has an index that starts with its columns (a delete of what it refers to scans no table)', async () => {
  const { db, drop } = await emptyDb('mig');
  try {
    await migrate(db);
    // Partial indexes do not count: the check that a delete makes reads every row of the key.
    const unindexed = await db.query(`
      SELECT c.conrelid::regclass::text || ' (' || array_to_string(ARRAY(
               SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
               JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i), ', ') || ')' AS key
      FROM pg_constraint c
      WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
        AND NOT EXISTS (
          SELECT 1 FROM pg_index i
          WHERE i.indrelid = c.conrelid AND i.indpred IS NULL
            AND (string_to_array(i.indkey::text, ' ')::int2[])[1:cardinality(c.conkey)] @> c.conkey
            AND (string_to_array(i.indkey::text, ' ')::int2[])[1:cardinality(c.conkey)] <@ c.conkey)
      ORDER BY 1`);
    assert.equal(unindexed.map((r) => r.key), [], 'foreign keys without an index');
    const [{ keys }] = await db.query(`SELECT count(*)::int AS keys FROM pg_constraint WHERE contype = 'f' AND connamespace = current_schema()::regnamespace`);
    assert.ok(keys > 20, `the check saw the schema's foreign keys (${keys})`);
  } finally {
    await drop();
  }
});

migrations('008 stores the page JSON of steps written before it, as the steps page would have formatted them', async () => {
  const { db, drop } = await emptyDb('mig');
  try {
    // The schema as it stood before 008, with a step in it.
    await migrateBefore(db, 8);
    const [user] = await db.query(`INSERT INTO users (email) VALUES ('old@example.test') RETURNING id`);
    const [agent] = await db.query(`INSERT INTO agents (owner_id, name) VALUES ($1, 'Old') RETURNING id`, [user.id]);
    const [thread] = await db.query(`INSERT INTO threads (agent_id, name) VALUES ($1, 'Old thread') RETURNING id`, [agent.id]);
    await db.query(
      `INSERT INTO thread_steps (thread_id, sequence, user_text, tool_calls, created_at, updated_at)
       VALUES ($1, 1, 'Hi "there" ✓', '[{"id":"t","name":"computer","input":{"action":"screenshot"}}]',
               '2026-01-02T03:04:05.678Z', '2026-01-02T03:04:06.789Z')`,
      [thread.id]);

    assert.equal(await migrate(db), MIGRATIONS.filter((m) => m.id >= 8).map((m) => m.id));
    const [{ page_json }] = await db.query('SELECT page_json FROM thread_steps');
    const [row] = await db.query(
      'SELECT id, thread_id, sequence, reasoning_text, assistant_text, user_text, user_files, tool_calls, created_at, updated_at FROM thread_steps');
    assert.equal(JSON.parse(page_json), JSON.parse(JSON.stringify(row)));
    assert.is(JSON.parse(page_json).created_at, '2026-01-02T03:04:05.678Z');
  } finally {
    await drop();
  }
});

migrations('016 keeps every instance of both old registries once, with its freshest heartbeat and what the fleet said of it', async () => {
  const { db, drop } = await emptyDb('mig');
  try {
    await migrateBefore(db, 16);
    // One server known to both (its runner and its fleet), one runner only, one fleet instance only.
    await db.query(`INSERT INTO runner_instances (id, started_at, heartbeat_at) VALUES
      ('web-1:4100:aaaa', '2026-11-28T10:00:00Z', '2026-11-28T12:00:09Z'),
      ('web-2:4200:bbbb', '2026-11-28T11:00:00Z', '2026-11-28T12:00:03Z')`);
    await db.query(`INSERT INTO desktop_instances (id, address, host, pid, desktop_host, started_at, heartbeat_at) VALUES
      ('web-1:4100:aaaa', 'http://10.0.0.1:8080', 'web-1', 4100, true, '2026-11-28T10:00:01Z', '2026-11-28T12:00:05Z'),
      ('desk-3:4300:cccc', 'http://10.0.0.3:8080', 'desk-3', 4300, true, '2026-11-28T09:00:00Z', '2026-11-28T12:00:07Z')`);

    assert.equal(await migrate(db), MIGRATIONS.filter((m) => m.id >= 16).map((m) => m.id));
    const rows = await db.query<Record<string, unknown>>(
      `SELECT id, host, pid, address, desktop_host, to_char(started_at AT TIME ZONE 'UTC', 'HH24:MI:SS') AS started,
         to_char(heartbeat_at AT TIME ZONE 'UTC', 'HH24:MI:SS') AS beat FROM instances ORDER BY id`);
    assert.equal(rows, [
      { id: 'desk-3:4300:cccc', host: 'desk-3', pid: 4300, address: 'http://10.0.0.3:8080', desktop_host: true, started: '09:00:00', beat: '12:00:07' },
      { id: 'web-1:4100:aaaa', host: 'web-1', pid: 4100, address: 'http://10.0.0.1:8080', desktop_host: true, started: '10:00:00', beat: '12:00:09' },
      { id: 'web-2:4200:bbbb', host: 'web-2', pid: 4200, address: null, desktop_host: false, started: '11:00:00', beat: '12:00:03' },
    ]);
    const old = await db.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('runner_instances', 'desktop_instances')`);
    assert.equal(old, []);
  } finally {
    await drop();
  }
});

migrations.run();
