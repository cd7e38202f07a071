// The audit trail's tamper evidence and volume: the database refuses updates and deletes, verify follows the
// hash chain and names a changed event, concurrent writers keep one chain, the prune anchors it, and 100,000
// events export as JSON lines and CSV in bounded memory (the CSV read back by Python's csv module).
import { spawn } from 'node:child_process';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pruneAudit } from '../../server/audit/audit.ts';
import { countByAction } from '../../server/audit/read.ts';
import type { Queryable } from '../../server/db/db.ts';
import { vacuumRound } from '../../server/db/vacuum.ts';
import { appendBulk } from './audit-bulk.ts';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';

const db = async () => (await testServer()).parts.db;

async function verify(token: string) {
  const res = await call('/api/admin/audit/verify', { token });
  assert.is(res.status, 200);
  return res.body as { ok: boolean; checked: number; first_bad_id: number | null };
}

const chain = suite('audit: tamper evidence');

chain('verify is ok on a real history and checks every event', async () => {
  const user = await newUser('chain');
  const agent = await newAgent(user.id);
  for (let i = 0; i < 5; i++) await call(`/api/agents/${agent.id}/notes`, { method: 'PUT', token: user.token, body: { notes: `v${i}` } });
  const admin = await adminToken();
  const [{ n }] = await (await db()).query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events');
  assert.equal(await verify(admin), { ok: true, checked: n, first_bad_id: null });
});

chain('the database refuses UPDATE, DELETE and TRUNCATE of events', async () => {
  const q = await db();
  for (const sql of ["UPDATE audit_events SET detail = '{}'", 'DELETE FROM audit_events', 'TRUNCATE audit_events']) {
    await q.query(sql).then(() => assert.unreachable(sql), (err) => assert.match(err.message, /append-only/, sql));
  }
});

chain('after an UPDATE with the trigger dropped, verify names the changed event', async () => {
  const q = await db();
  const admin = await adminToken();
  const user = await newUser('chain-tamper');
  const agent = await newAgent(user.id);
  await call(`/api/agents/${agent.id}/notes`, { method: 'PUT', token: user.token, body: { notes: 'after' } }); // an event after it
  const [victim] = await q.query<{ id: number; detail: unknown }>(
    "SELECT id, detail FROM audit_events WHERE action = 'agent.create' ORDER BY id DESC LIMIT 1");
  await q.query('DROP TRIGGER audit_events_append_only ON audit_events');
  try {
    await q.query(`UPDATE audit_events SET detail = jsonb_set(detail, '{name}', '"Someone else"') WHERE id = $1`, [victim.id]);
    assert.equal(await verify(admin), { ok: false, checked: (await verify(admin)).checked, first_bad_id: Number(victim.id) });
    // Put back as it was: the chain holds again.
    await q.query('UPDATE audit_events SET detail = $2::jsonb WHERE id = $1', [victim.id, JSON.stringify(victim.detail)]);
    assert.is((await verify(admin)).ok, true);
    // A deleted event shows at the one after it.
    const [next] = await q.query<{ id: number }>('SELECT min(id) AS id FROM audit_events WHERE id > $1', [victim.id]);
    // Kept aside in SQL (a JavaScript Date would lose the microseconds of its time, and so its hash).
    await q.query('CREATE TABLE audit_saved AS SELECT * FROM audit_events WHERE id = $1', [victim.id]);
    await q.query('DELETE FROM audit_events WHERE id = $1', [victim.id]);
    assert.is((await verify(admin)).first_bad_id, Number(next.id));
    await q.query('INSERT INTO audit_events SELECT * FROM audit_saved');
    await q.query('DROP TABLE audit_saved');
    assert.is((await verify(admin)).ok, true);
  } finally {
    await q.query('CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_refuse()');
  }
});

chain('concurrent changes append one chain', async () => {
  const user = await newUser('chain-concurrent');
  const agents = await Promise.all([1, 2, 3, 4].map(() => newAgent(user.id)));
  const before = (await (await db()).query<{ n: number }>('SELECT coalesce(max(id), 0)::int AS n FROM audit_events'))[0].n;
  await Promise.all(agents.flatMap((a) => [1, 2, 3, 4, 5].map((i) =>
    call(`/api/agents/${a.id}/notes`, { method: 'PUT', token: user.token, body: { notes: `n${i}` } }))));
  const rows = await (await db()).query<{ id: number; prev_hash: string; hash: string }>(
    'SELECT id, prev_hash, hash FROM audit_events WHERE id > $1 ORDER BY id', [before]);
  assert.ok(rows.length >= 20, `${rows.length} events`);
  for (let i = 1; i < rows.length; i++) assert.is(rows[i].prev_hash, rows[i - 1].hash, `event ${rows[i].id} follows ${rows[i - 1].id}`);
  assert.is((await verify(await adminToken())).ok, true);
});

// What a database role alone can do to the trail (issue: the app's own role rewrote it undetectably), as SQL.
const rewrite = suite('audit: a rewrite by the database role');

/** The unkeyed SHA-256 an attacker recomputes (the formula of audit_event_hash(), migration 013), for row r after prev. */
const SHA = (prev: string, r: string) => `encode(sha256(convert_to(${prev} || jsonb_build_array(${r}.id, (extract(epoch FROM ${r}.at) * 1000000)::bigint,
  ${r}.instance, ${r}.actor_type, ${r}.actor_id, ${r}.actor_label, ${r}.impersonator_id, ${r}.impersonator_label, ${r}.action, ${r}.target_type,
  ${r}.target_id, ${r}.request_id, ${r}.ip, ${r}.user_agent, ${r}.detail)::text, 'UTF8')), 'hex')`;
const COLS = `id, at, instance, actor_type, actor_id, actor_label, impersonator_id, impersonator_label, action, target_type, target_id, request_id,
  ip, user_agent, detail, prev_hash, hash`;

/** Runs `attack` in one transaction, checks verify, then puts the trail back as it was (kept aside in SQL, microseconds and all). */
async function attacked(attack: (t: Queryable) => Promise<unknown>, check: (v: Awaited<ReturnType<typeof verify>>) => void) {
  const q = await db();
  const admin = await adminToken();
  assert.is((await verify(admin)).ok, true, 'whole before');
  await q.query('CREATE TABLE audit_kept AS SELECT * FROM audit_events');
  await q.query('CREATE TABLE audit_chain_kept AS SELECT * FROM audit_chain');
  try {
    await q.tx(attack);
    check(await verify(admin));
  } finally {
    await q.tx(asOwner(['DELETE FROM audit_events', `INSERT INTO audit_events (${COLS}) SELECT ${COLS} FROM audit_kept`,
      'DELETE FROM audit_chain', 'INSERT INTO audit_chain SELECT * FROM audit_chain_kept',
      // The counts too (the attack's own inserts and deletes moved them; the restore, with triggers off, does not).
      'DELETE FROM audit_counts', 'INSERT INTO audit_counts SELECT action, count(*) FROM audit_events GROUP BY action']));
    await q.query('DROP TABLE audit_kept');
    await q.query('DROP TABLE audit_chain_kept');
  }
  assert.is((await verify(admin)).ok, true, 'whole again');
}

/** Statements run by the table's owner, for whom the append-only trigger is no obstacle (on the old schema a session setting opened deletes). */
const asOwner = (statements: string[]) => async (t: Queryable) => {
  await t.query('ALTER TABLE audit_events DISABLE TRIGGER USER');
  for (const sql of statements) await t.query(sql);
  await t.query('ALTER TABLE audit_events ENABLE TRIGGER USER');
};

rewrite('a session setting no longer opens deletes', async () => {
  const q = await db();
  const [{ id }] = await q.query<{ id: number }>('SELECT max(id) AS id FROM audit_events');
  await q.tx(async (t) => {
    await t.query("SET LOCAL audit.prune = 'on'");
    await t.query('DELETE FROM audit_events WHERE id = $1', [id]);
    throw new Error('the delete went through');
  }).then(() => assert.unreachable(), (err) => assert.match(err.message, /append-only/));
});

rewrite('events deleted, altered copies put back with recomputed hashes and audit_chain moved: verify names the first', async () => {
  const user = await newUser('chain-rewrite');
  const agent = await newAgent(user.id);
  for (let i = 0; i < 3; i++) await call(`/api/agents/${agent.id}/notes`, { method: 'PUT', token: user.token, body: { notes: `r${i}` } });
  const [victim] = await (await db()).query<{ id: number }>(
    "SELECT id FROM audit_events WHERE action = 'agent.create' AND target_id = $1", [String(agent.id)]);
  await attacked(asOwner([`DO $$ DECLARE r record; h text; BEGIN
    PERFORM 1 FROM audit_chain WHERE id = 1 FOR UPDATE;
    CREATE TEMP TABLE altered ON COMMIT DROP AS SELECT * FROM audit_events WHERE id >= ${victim.id};
    UPDATE altered SET detail = jsonb_set(detail, '{name}', '"Someone else"') WHERE id = ${victim.id};
    DELETE FROM audit_events WHERE id >= ${victim.id};
    SELECT prev_hash INTO h FROM altered ORDER BY id LIMIT 1;
    FOR r IN SELECT * FROM altered ORDER BY id LOOP
      INSERT INTO audit_events (${COLS}) VALUES (r.id, r.at, r.instance, r.actor_type, r.actor_id, r.actor_label, r.impersonator_id,
        r.impersonator_label, r.action, r.target_type, r.target_id, r.request_id, r.ip, r.user_agent, r.detail, h, ${SHA('h', 'r')});
      h := ${SHA('h', 'r')};
    END LOOP;
    UPDATE audit_chain SET last_hash = h WHERE id = 1;
  END $$`]), (v) => assert.equal(v, { ok: false, checked: v.checked, first_bad_id: Number(victim.id) }));
});

rewrite('the oldest events deleted and the anchor moved to the first one left: verify refuses the start', async () => {
  const [first] = await (await db()).query<{ id: number }>('SELECT id FROM audit_events ORDER BY id OFFSET 3 LIMIT 1');
  await attacked(asOwner([`DELETE FROM audit_events WHERE id < ${first.id}`,
    `UPDATE audit_chain SET anchor_id = ${first.id}, anchor_hash = (SELECT prev_hash FROM audit_events WHERE id = ${first.id}) WHERE id = 1`]),
  (v) => assert.equal(v, { ok: false, checked: 0, first_bad_id: Number(first.id) }));
});

rewrite('a prune event written in SQL opens the delete, but verify names it', async () => {
  const [last] = await (await db()).query<{ id: number; hash: string }>('SELECT id, hash FROM audit_events ORDER BY id DESC LIMIT 1');
  let fake = 0;
  await attacked(async (t) => {
    const [row] = await t.query<{ id: number }>(`INSERT INTO audit_events (${COLS})
      SELECT nextval('audit_events_id_seq'), now(), 'sql', 'system', NULL, NULL, NULL, NULL, 'audit.prune', 'audit', '3', NULL, NULL, NULL,
        '{"through_id": 3}', $1, repeat('0', 64) RETURNING id`, [last.hash]);
    fake = Number(row.id);
    await t.query('DELETE FROM audit_events WHERE id <= 3'); // the trigger lets it through: the prune event is the transaction's own
    await t.query('UPDATE audit_chain SET last_id = $1, last_hash = $2 WHERE id = 1', [row.id, '0'.repeat(64)]);
  }, (v) => assert.equal(v, { ok: false, checked: 0, first_bad_id: 4 }));
  assert.ok(fake > Number(last.id));
});

const volume = suite('audit: 100,000 events');

const NOTE = 'a "quoted", value\nover two lines';
const AGENT = 'Bulk/1.0 (commas, "quotes")';

volume('export streams JSON lines and CSV in bounded memory, and both parse back', async () => {
  const q = await db();
  const admin = await adminToken();
  const started = Date.now();
  // Appended like record() does (keyed), 100,000 times, so the chain stays valid.
  const t0 = Date.now();
  await appendBulk(q, Array.from({ length: 100_000 }, (_, n) => ({
    at: new Date(t0 + Math.floor(n / 1000)).toISOString().replace('Z', `${String(n % 1000).padStart(3, '0')}Z`), instance: 'bulk',
    actor_type: 'system', actor_id: null, actor_label: null, impersonator_id: null, impersonator_label: null, action: 'bulk.test',
    target_type: 'agent', target_id: String(n + 1), request_id: null, ip: null, user_agent: AGENT, detail: JSON.stringify({ i: n + 1, note: NOTE }),
  })));
  console.log(`    100,000 events appended in ${Date.now() - started} ms`);
  // Statistics as they are minutes after such growth: PGlite's maintenance round (db/vacuum.ts) or PostgreSQL's autovacuum
  // analyzes the table. Without them the planner takes it for small and sorts every matching row for each page.
  await (q.engine === 'pglite' ? vacuumRound(q) : q.query('ANALYZE audit_events'));

  // Python reads both exports (urllib, streaming), so this process's heap is the server's alone.
  const { url } = await testServer();
  const header = ['id', 'at', 'instance', 'actor_type', 'actor_id', 'actor_label', 'impersonator_id', 'impersonator_label', 'action',
    'target_type', 'target_id', 'request_id', 'ip', 'user_agent', 'detail', 'prev_hash', 'hash'];
  for (const format of ['jsonl', 'csv']) {
    const peak = sampleHeap();
    const read = await readExport(`${url}/api/admin/audit/export?format=${format}&action=bulk.`, admin, format);
    const growth = peak.stop();
    console.log(`    ${format}: ${(read.bytes / 1e6).toFixed(1)} MB streamed, the server's live heap grew at most ${(growth / 1e6).toFixed(1)} MB`);
    assert.equal({ ...read, bytes: 0 }, { status: 200, rows: 100_000, ok: 100_000, descending: true, header: format === 'csv' ? header : null, bytes: 0 });
    // Held whole, 100,000 rows would be well over 100 MB of objects and strings; streamed, a batch or two is alive.
    assert.ok(growth < 16e6, `heap grew ${growth} bytes for a ${read.bytes} byte export`);
  }
  assert.is((await verify(admin)).ok, true);
});

volume('the retention prune records itself and anchors the chain at the first event that remains', async () => {
  const q = await db();
  const admin = await adminToken();
  const [middle] = await q.query<{ id: number; at: Date }>("SELECT id, at FROM audit_events WHERE action = 'bulk.test' AND target_id = '50000'");
  const [{ older }] = await q.query<{ older: number }>('SELECT count(*)::int AS older FROM audit_events WHERE at < $1', [middle.at]);
  // The cutoff in milliseconds: the events of that millisecond before the middle one stay too.
  const [anchor] = await q.query<{ id: number }>('SELECT min(id) AS id FROM audit_events WHERE at >= $1', [middle.at]);
  const done = await pruneAudit(q, 400, new Date(new Date(middle.at).getTime() + 400 * 86_400_000));
  assert.equal(done, { deleted: older, anchorId: Number(anchor.id) });
  const [first] = await q.query<{ id: number }>('SELECT min(id) AS id FROM audit_events');
  assert.is(Number(first.id), Number(anchor.id));
  const [event] = await q.query("SELECT * FROM audit_events WHERE action = 'audit.prune' ORDER BY id DESC LIMIT 1");
  assert.is(event.actor_type, 'system');
  assert.is(event.detail.deleted, older);
  assert.is(event.detail.retention_days, 400);
  const verdict = await verify(admin);
  assert.is(verdict.ok, true);
  const counted = await q.query('SELECT action, count(*)::int AS n FROM audit_events GROUP BY action ORDER BY action');
  assert.equal(await countByAction(q), counted, 'the kept counts went down with the prune');
  // Outside the prune deletes are refused again.
  await q.query('DELETE FROM audit_events WHERE id = $1', [middle.id]).then(() => assert.unreachable(), (err) => assert.match(err.message, /append-only/));
  assert.is(await pruneAudit(q, 400), null, 'nothing older than 400 days now');
});

v8.setFlagsFromString('--expose-gc');
const gc: () => void = runInNewContext('gc');

/** The most the live heap (after a full collection) grew above the starting one, sampled every 50 ms until stop(). */
function sampleHeap() {
  const live = () => (gc(), process.memoryUsage().heapUsed);
  const base = live();
  let max = base;
  const timer = setInterval(() => (max = Math.max(max, live())), 50);
  return { stop: () => (clearInterval(timer), max - base) };
}

/** Python reads the export as it streams (JSON lines by line, CSV with its csv module); what it found. */
async function readExport(url: string, token: string, format: string): Promise<any> {
  const script = `
import csv, io, json, sys, urllib.request
res = urllib.request.urlopen(urllib.request.Request(sys.argv[1], headers={'Authorization': 'Bearer ' + sys.argv[2]}))
class Counting(io.RawIOBase):
    bytes = 0
    def readable(self): return True
    def readinto(self, b):
        data = res.read(len(b))
        Counting.bytes += len(data)
        b[:len(data)] = data
        return len(data)
text = io.TextIOWrapper(io.BufferedReader(Counting()), encoding='utf-8', newline='')
rows = ok = 0
last = None
descending = True
header = None
if sys.argv[3] == 'csv':
    reader = csv.DictReader(text)
    events = ({**row, 'id': int(row['id']), 'detail': json.loads(row['detail'])} for row in reader)
else:
    reader = None
    events = (json.loads(line) for line in text)
for e in events:
    rows += 1
    descending = descending and (last is None or e['id'] < last)
    last = e['id']
    ok += e['action'] == 'bulk.test' and e['user_agent'] == ${JSON.stringify(AGENT)} and e['detail']['note'] == ${JSON.stringify(NOTE)}
print(json.dumps({'status': res.status, 'rows': rows, 'ok': ok, 'descending': descending, 'bytes': Counting.bytes,
                  'header': reader.fieldnames if reader else None}))
`;
  const py = spawn('python3', ['-c', script, url, token, format], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  py.stdout.on('data', (d) => (out += d));
  await new Promise((resolve) => py.on('close', resolve));
  return JSON.parse(out);
}

chain.run();
rewrite.run();
volume.run();
