// The PostgreSQL snapshot read on a line of its own (server/db/snapshot-line.ts): pg_current_snapshot()'s
// text, moved on by another connection's commit, an answer to each of several reads asked at once, and a
// line that PostgreSQL ends is replaced (reads go through the pool meanwhile). PostgreSQL only.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openSnapshotLine } from '../../server/db/snapshot-line.ts';
import { SNAPSHOT_LINE_NAME } from '../../server/db/db.ts';
import { testServer } from './helpers.ts';

const line = suite('snapshot line');
const url = process.env.TEST_DATABASE_URL;
const SNAPSHOT = /^\d+:\d+:(\d+(,\d+)*)?$/;

line('reads the current snapshot, in order, and sees another connection\'s commit', async () => {
  if (!url) return;
  const { default: pg } = await import('pg');
  const snapshots = await openSnapshotLine(new pg.Client({ connectionString: url }));
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  try {
    const first = await snapshots.read();
    assert.match(first, SNAPSHOT);
    // Another connection's write transaction moves it on once it commits.
    await other.query('BEGIN');
    await other.query('SELECT pg_current_xact_id()');
    await other.query('COMMIT');
    assert.is.not(await snapshots.read(), first);
    // Several asked at once (pipelined): each gets a snapshot, the later ones none older than the first.
    const many = await Promise.all(Array.from({ length: 20 }, () => snapshots.read()));
    for (const s of many) assert.match(s, SNAPSHOT);
    const xmax = (s: string) => Number(s.split(':')[1]);
    assert.ok(many.every((s) => xmax(s) >= xmax(many[0])));
    snapshots.close();
    const refused = await snapshots.read().then(() => null, (err: Error) => err.message);
    assert.match(refused ?? '', /closed/);
  } finally {
    snapshots.close();
    await other.end();
  }
});

line('a line PostgreSQL ends is replaced, and the version is read through the pool meanwhile', async () => {
  const { parts } = await testServer();
  const db = parts.db;
  if (db.engine !== 'postgres') return;
  const version = db.version as () => Promise<string>;
  assert.match(await version(), SNAPSHOT);
  const lines = () => db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [SNAPSHOT_LINE_NAME]);
  const [{ pid }] = await lines();
  await db.query('SELECT pg_terminate_backend($1)', [pid]);
  // Every read still answers: from the pool while the line is down, then from a new line.
  for (let i = 0; i < 5; i++) assert.match(await version(), SNAPSHOT);
  let replaced = false;
  for (let i = 0; i < 100 && !replaced; i++) {
    assert.match(await version(), SNAPSHOT);
    const now = await lines();
    replaced = now.length === 1 && now[0].pid !== pid;
    if (!replaced) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(replaced, 'a new line was opened');
});

line.run();
