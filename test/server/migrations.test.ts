import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate, MIGRATIONS } from '../../server/migrations.ts';
import { emptyDb, migrateBefore } from './db-helpers.ts';

const migrations = suite('db migrations');

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

migrations.run();
