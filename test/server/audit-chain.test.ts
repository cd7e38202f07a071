// The audit trail's tamper evidence and volume: the database refuses updates and deletes, verify follows the
// hash chain and names a changed event, concurrent writers keep one chain, the prune anchors it, and 100,000
// events export as JSON lines and CSV in bounded memory (the CSV read back by Python's csv module).
import { spawn } from 'node:child_process';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pruneAudit } from '../../server/domain/audit.ts';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';

const db = async () => (await testServer()).services.db;

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

const volume = suite('audit: 100,000 events');

const NOTE = 'a "quoted", value\nover two lines';
const AGENT = 'Bulk/1.0 (commas, "quotes")';

volume('export streams JSON lines and CSV in bounded memory, and both parse back', async () => {
  const q = await db();
  const admin = await adminToken();
  const started = Date.now();
  // Appended like record() does, 100,000 times, so the chain stays valid.
  // The head is read once and written once: 100,000 updates of its row in one transaction would each walk the row's versions.
  await q.query(`DO $$ DECLARE h text; n bigint; t timestamptz; next text; d jsonb; BEGIN
    SELECT last_hash INTO h FROM audit_chain WHERE id = 1 FOR UPDATE;
    FOR i IN 1..100000 LOOP
      n := nextval('audit_events_id_seq'); t := clock_timestamp(); d := jsonb_build_object('i', i, 'note', ${lit(NOTE)});
      next := audit_event_hash(h, n, t, 'bulk', 'system', NULL, NULL, NULL, NULL, 'bulk.test', 'agent', i::text, NULL, NULL, ${lit(AGENT)}, d);
      INSERT INTO audit_events (id, at, instance, actor_type, action, target_type, target_id, user_agent, detail, prev_hash, hash)
        VALUES (n, t, 'bulk', 'system', 'bulk.test', 'agent', i::text, ${lit(AGENT)}, d, h, next);
      h := next;
    END LOOP;
    UPDATE audit_chain SET last_id = n, last_hash = h, last_at = t WHERE id = 1;
  END $$`);
  console.log(`    100,000 events appended in ${Date.now() - started} ms`);

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
  // Outside the prune deletes are refused again.
  await q.query('DELETE FROM audit_events WHERE id = $1', [middle.id]).then(() => assert.unreachable(), (err) => assert.match(err.message, /append-only/));
  assert.is(await pruneAudit(q, 400), null, 'nothing older than 400 days now');
});

function lit(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

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
volume.run();
