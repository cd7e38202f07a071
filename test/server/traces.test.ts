import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';
import { recordTrace } from '../../server/traces/traces.ts';

/** Two users with traces at known times; ids ascend with created_at. */
async function setup() {
  const { db } = (await testServer()).parts;
  const alice = await newUser('alice');
  const bob = await newUser('bob');
  const agentA = await newAgent(alice.id);
  const agentB = await newAgent(bob.id);
  const threadA = (await call('/api/threads/', { token: alice.token, body: { agent_id: agentA.id, name: 'A' } })).body;
  const threadB = (await call('/api/threads/', { token: bob.token, body: { agent_id: agentB.id, name: 'B' } })).body;
  const tag = Math.random().toString(36).slice(2, 8);
  const insert = async (owner: number, agent: number, thread: number, name: string, at: string, cost = 0.01) =>
    (await db.one<{ id: number }>(
      `INSERT INTO llm_traces (owner_id, agent_id, thread_id, thread_name, model, cache_read_tokens, input_tokens, output_tokens,
         estimated_cost, latency, parameters, request, response, created_at)
       VALUES ($1, $2, $3, $4, 'claude-sonnet-4-5', 5, 100, 20, $5, 1.5,
               '{"model":"claude-sonnet-4-5"}', '{"messages":[]}', '{"content":[{"type":"text","text":"hi"}]}', $6) RETURNING id`,
      [owner, agent, thread, name, cost, at]))!.id;
  const a: number[] = [];
  for (let i = 0; i < 5; i++) a.push(await insert(alice.id, agentA.id, threadA.id, `Main: ${tag} A`, `2030-01-0${i + 1} 10:00:00+00`));
  a.push(await insert(alice.id, agentA.id, threadA.id, `Sub: ${tag} helper`, '2030-01-05 10:30:00+00', 0.5));
  const b = [await insert(bob.id, agentB.id, threadB.id, `Main: ${tag} B`, '2030-01-03 12:00:00+00')];
  const get = (path: string, token = alice.token, headers: Record<string, string> = {}) => call(path, { token, headers });
  return { alice, bob, threadA, threadB, a, b, tag, get };
}

const list = suite('traces: list, filters, paging');

list('a user sees only their own traces, newest first, without bodies', async () => {
  const s = await setup();
  const res = await s.get('/api/llm_traces/?page=1&page_size=20');
  assert.is(res.status, 200);
  assert.equal(res.body.traces.map((t: any) => t.id), [...s.a].reverse());
  assert.is(res.body.total_count, 6);
  assert.is(res.body.page, 1);
  assert.is(res.body.page_size, 20);
  const row = res.body.traces[0];
  assert.equal(Object.keys(row).sort(), [
    'agent_id', 'cache_read_tokens', 'created_at', 'estimated_cost', 'id', 'input_tokens', 'latency', 'model', 'output_tokens',
    'owner_email', 'owner_id', 'run_id', 'thread_id', 'thread_name',
  ].sort());
  assert.is(row.owner_email, s.alice.email);
  assert.is(row.latency, 1.5);
});

list('owner_id: admins filter by any owner; a user asking for another owner is 403', async () => {
  const s = await setup();
  const admin = await adminToken();
  const bobs = await s.get(`/api/llm_traces/?owner_id=${s.bob.id}`, admin);
  assert.equal(bobs.body.traces.map((t: any) => t.id), s.b);
  const forbidden = await s.get(`/api/llm_traces/?owner_id=${s.bob.id}`);
  assert.is(forbidden.status, 403);
  assert.is((await s.get(`/api/llm_traces/?owner_id=${s.alice.id}`)).body.total_count, 6);
  // an admin impersonating Alice acts as Alice
  const asAlice = await s.get('/api/llm_traces/', admin, { 'X-Impersonate-User-Id': String(s.alice.id) });
  assert.is(asAlice.body.total_count, 6);
});

list('thread_name (exact), id range and timestamp range filters', async () => {
  const s = await setup();
  const q = (query: string) => s.get(`/api/llm_traces/?${query}`).then((r) => r.body.traces.map((t: any) => t.id));
  assert.equal(await q(`thread_name=${encodeURIComponent(`Sub: ${s.tag} helper`)}`), [s.a[5]]);
  assert.equal(await q(`thread_name=${encodeURIComponent(`Main: ${s.tag}`)}`), [], 'exact, not a prefix');
  assert.equal(await q(`id_from=${s.a[1]}&id_to=${s.a[3]}`), [s.a[3], s.a[2], s.a[1]]);
  // 'YYYY-MM-DD HH:MM' in UTC; the upper minute is included
  const range = `created_at_from=${encodeURIComponent('2030-01-02 10:00')}&created_at_to=${encodeURIComponent('2030-01-04 10:00')}`;
  assert.equal(await q(range), [s.a[3], s.a[2], s.a[1]]);
  assert.equal(await q(`created_at_from=${encodeURIComponent('2030-01-05 10:01')}`), [s.a[5]]);
});

list('paging: page and page_size, total_count for the filtered set', async () => {
  const s = await setup();
  const p2 = await s.get('/api/llm_traces/?page=2&page_size=4');
  assert.equal(p2.body.traces.map((t: any) => t.id), [s.a[1], s.a[0]]);
  assert.is(p2.body.total_count, 6);
  const p3 = await s.get('/api/llm_traces/?page=3&page_size=4');
  assert.equal(p3.body.traces, []);
  assert.is(p3.body.total_count, 6);
  const p1 = await s.get('/api/llm_traces/?page=1&page_size=3');
  assert.is(p1.body.total_count, 6);
  assert.is(p1.body.total_count_estimated, false);
});

list('bad numbers and dates are 422 with {loc, msg}', async () => {
  const s = await setup();
  for (const [query, field] of [
    ['id_from=abc', 'id_from'], ['id_to=1.5', 'id_to'], ['page=0', 'page'], ['page_size=101', 'page_size'], ['owner_id=x', 'owner_id'],
    ['created_at_from=yesterday', 'created_at_from'], ['created_at_to=2030-02-30%2010:00', 'created_at_to'],
    ['created_at_to=2030-01-01%2025:00', 'created_at_to'],
  ]) {
    const res = await s.get(`/api/llm_traces/?${query}`);
    assert.is(res.status, 422, query);
    assert.equal(res.body.detail[0].loc, ['query', field]);
    assert.type(res.body.detail[0].msg, 'string');
  }
});

list('cost_by_day groups the filtered traces by UTC day', async () => {
  const s = await setup();
  const days = (await s.get(`/api/llm_traces/cost_by_day?created_at_from=${encodeURIComponent('2030-01-04 00:00')}`)).body;
  assert.equal(days, [{ day: '2030-01-04', cost: 0.01, count: 1 }, { day: '2030-01-05', cost: 0.51, count: 2 }]);
});

list('cost_by_day by owner and name reads daily sums that follow every insert, change and delete', async () => {
  const s = await setup();
  const { db } = (await testServer()).parts;
  const days = async (query = '', token = s.alice.token) => (await s.get(`/api/llm_traces/cost_by_day${query}`, token)).body;
  // The same answer as summing the traces themselves (a time filter takes that path).
  const raw = await days(`?created_at_from=${encodeURIComponent('2000-01-01 00:00')}`);
  assert.equal(await days(), raw);
  assert.equal(raw.map((d: any) => [d.day, d.count]), [['2030-01-01', 1], ['2030-01-02', 1], ['2030-01-03', 1], ['2030-01-04', 1], ['2030-01-05', 2]]);
  assert.equal(await days(`?thread_name=${encodeURIComponent(`Sub: ${s.tag} helper`)}`), [{ day: '2030-01-05', cost: 0.5, count: 1 }]);

  await db.query('UPDATE llm_traces SET estimated_cost = 0.25 WHERE id = $1', [s.a[0]]);
  await db.query(`UPDATE llm_traces SET created_at = '2030-01-09 08:00:00+00' WHERE id = $1`, [s.a[1]]);
  await db.query('DELETE FROM llm_traces WHERE id = $1', [s.a[2]]);
  const after = await days();
  assert.equal(after.map((d: any) => [d.day, d.cost, d.count]), [
    ['2030-01-01', 0.25, 1], ['2030-01-04', 0.01, 1], ['2030-01-05', 0.51, 2], ['2030-01-09', 0.01, 1],
  ]);
  assert.equal(after, await days(`?created_at_from=${encodeURIComponent('2000-01-01 00:00')}`));

  // An account that goes takes its traces and its sums with it.
  const admin = await adminToken();
  assert.is((await days(`?owner_id=${s.bob.id}`, admin)).length, 1);
  await db.query('DELETE FROM users WHERE id = $1', [s.bob.id]);
  assert.equal(await days(`?owner_id=${s.bob.id}`, admin), []);
});

const lookups = suite('traces: owners, thread names, one trace');

lookups('owners: an admin gets every owner with traces, a user only themself', async () => {
  const s = await setup();
  const admin = await adminToken();
  const all = (await s.get('/api/llm_traces/owners', admin)).body;
  assert.ok(all.some((o: any) => o.id === s.alice.id && o.email === s.alice.email));
  assert.ok(all.some((o: any) => o.id === s.bob.id));
  assert.equal((await s.get('/api/llm_traces/owners')).body, [{ id: s.alice.id, email: s.alice.email }]);
});

lookups('thread_names: distinct, sorted, scoped like the list', async () => {
  const s = await setup();
  assert.equal((await s.get('/api/llm_traces/thread_names')).body, [`Main: ${s.tag} A`, `Sub: ${s.tag} helper`]);
  const admin = await adminToken();
  assert.equal((await s.get(`/api/llm_traces/thread_names?owner_id=${s.bob.id}`, admin)).body, [`Main: ${s.tag} B`]);
  const everyone = (await s.get('/api/llm_traces/thread_names', admin)).body as string[];
  assert.ok(everyone.includes(`Main: ${s.tag} B`) && everyone.includes(`Sub: ${s.tag} helper`));
  assert.is(new Set(everyone).size, everyone.length, 'distinct');
  assert.is((await s.get(`/api/llm_traces/thread_names?owner_id=${s.bob.id}`)).status, 403);
});

lookups('one trace: the owner and admins get it whole; anyone else gets 404', async () => {
  const s = await setup();
  const mine = await s.get(`/api/llm_traces/${s.a[0]}`);
  assert.is(mine.status, 200);
  assert.equal(mine.body.response, { content: [{ type: 'text', text: 'hi' }] });
  assert.equal(mine.body.request, { messages: [] });
  assert.equal(mine.body.parameters, { model: 'claude-sonnet-4-5' });
  assert.is((await s.get(`/api/llm_traces/${s.b[0]}`)).status, 404);
  assert.is((await s.get(`/api/llm_traces/${s.b[0]}`, await adminToken())).status, 200);
  assert.is((await s.get('/api/llm_traces/99999999')).status, 404);
  assert.is((await call(`/api/llm_traces/${s.a[0]}`)).status, 401);
});

const thread = suite('traces: a thread\'s traces');

thread('no cursor: the newest `limit`, oldest first; has_more when older ones exist', async () => {
  const s = await setup();
  const res = await s.get(`/api/llm_traces/thread/${s.threadA.id}?limit=4`);
  assert.equal(res.body.traces.map((t: any) => t.id), s.a.slice(2));
  assert.is(res.body.has_more, true);
  const all = await s.get(`/api/llm_traces/thread/${s.threadA.id}`);
  assert.equal(all.body.traces.map((t: any) => t.id), s.a);
  assert.is(all.body.has_more, false);
});

thread('before_trace_id pages back; after_trace_id polls forward', async () => {
  const s = await setup();
  const older = await s.get(`/api/llm_traces/thread/${s.threadA.id}?before_trace_id=${s.a[2]}&limit=1`);
  assert.equal(older.body.traces.map((t: any) => t.id), [s.a[1]]);
  assert.is(older.body.has_more, true);
  const oldest = await s.get(`/api/llm_traces/thread/${s.threadA.id}?before_trace_id=${s.a[1]}&limit=100`);
  assert.equal(oldest.body.traces.map((t: any) => t.id), [s.a[0]]);
  assert.is(oldest.body.has_more, false);
  const newer = await s.get(`/api/llm_traces/thread/${s.threadA.id}?after_trace_id=${s.a[2]}&limit=2`);
  assert.equal(newer.body.traces.map((t: any) => t.id), [s.a[3], s.a[4]]);
  const none = await s.get(`/api/llm_traces/thread/${s.threadA.id}?after_trace_id=${s.a[5]}&verbose=true`);
  assert.equal(none.body, { traces: [], has_more: false });
});

thread('verbose=false leaves out request and response; verbose=true has them; parameters always', async () => {
  const s = await setup();
  const lean = (await s.get(`/api/llm_traces/thread/${s.threadA.id}?verbose=false`)).body.traces[0];
  assert.ok(!('request' in lean) && !('response' in lean));
  assert.equal(lean.parameters, { model: 'claude-sonnet-4-5' });
  const full = (await s.get(`/api/llm_traces/thread/${s.threadA.id}?verbose=true`)).body.traces[0];
  assert.equal(full.response, { content: [{ type: 'text', text: 'hi' }] });
  assert.is((await s.get(`/api/llm_traces/thread/${s.threadA.id}?verbose=yes`)).status, 422);
  assert.is((await s.get(`/api/llm_traces/thread/${s.threadA.id}?limit=501`)).status, 422);
});

thread('a foreign or missing thread is 404', async () => {
  const s = await setup();
  assert.is((await s.get(`/api/llm_traces/thread/${s.threadB.id}`)).status, 404);
  assert.is((await s.get('/api/llm_traces/thread/99999999')).status, 404);
  assert.is((await s.get(`/api/llm_traces/thread/${s.threadB.id}`, await adminToken())).status, 200);
});

const stored = suite('traces: what a call sent, each part stored once');

stored('a 200-call thread: every trace shows exactly what its call sent, and all of them take at most 3x its messages', async () => {
  const { db } = (await testServer()).parts;
  const owner = await newUser('long-thread');
  const agent = await newAgent(owner.id);
  const t = (await call('/api/threads/', { token: owner.token, body: { agent_id: agent.id, name: 'Long' } })).body;
  // As the runner sends them: the conversation so far, with the same system prompt and tools every call; once the
  // oldest messages are dropped (a context kept short) and once the system prompt changes.
  let system = [{ type: 'text', text: 'You operate a computer for the user. '.repeat(40) }];
  const tools = [{ name: 'computer', type: 'computer_20250124', display_width_px: 1280, display_height_px: 800 },
    { name: 'bash', description: 'Runs a command. '.repeat(30), input_schema: { type: 'object', properties: { command: { type: 'string' } } } }];
  const messages: unknown[] = [];
  const dropped: unknown[] = [];
  const systems: unknown[] = [];
  const sent: unknown[] = [];
  const ids: number[] = [];
  for (let call = 1; call <= 200; call++) {
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${call}`, content: `Result ${call}: ${'x'.repeat(200)}` }] });
    if (call === 120) dropped.push(...messages.splice(0, 10));
    if (call === 150) (systems.push(system), system = [{ type: 'text', text: 'You operate a computer for the user, carefully. '.repeat(30) }]);
    const request = { model: 'claude-sonnet-4-5', max_tokens: 4096, system, tools, messages: [...messages] };
    sent.push(JSON.parse(JSON.stringify(request)));
    ids.push(await recordTrace(db, {
      owner_id: owner.id, agent_id: agent.id, thread_id: t.id, thread_name: 'Long', model: 'claude-sonnet-4-5',
      usage: { input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 }, cost: 0, latencyMs: 100,
      parameters: { model: 'claude-sonnet-4-5' }, request, response: { content: [{ type: 'text', text: `Step ${call}` }] },
    }));
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${call + 1}`, name: 'bash', input: { command: `ls ${call}` } }] });
  }
  // Exactly what each call sent: one trace, and the thread's traces with their bodies.
  for (const i of [0, 99, 199]) assert.equal((await call(`/api/llm_traces/${ids[i]}`, { token: owner.token })).body.request, sent[i]);
  const page = (await call(`/api/llm_traces/thread/${t.id}?verbose=true&limit=500`, { token: owner.token })).body.traces;
  assert.equal(page.map((x: any) => x.request), sent);

  const textSize = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
  // Every message, system prompt and tool list the thread sent, once.
  const conversation = textSize(dropped) + textSize(messages) + textSize(systems) + textSize(system) + textSize(tools);
  const [{ traces, parts }] = await db.query(
    `SELECT (SELECT sum(pg_column_size(t.*))::int FROM llm_traces t WHERE thread_id = $1) AS traces,
            (SELECT sum(pg_column_size(p.*))::int FROM llm_trace_parts p WHERE owner_id = $2) AS parts`, [t.id, owner.id]);
  const ratio = (traces + parts) / conversation;
  assert.ok(ratio <= 3, `traces ${traces} B + parts ${parts} B: ${ratio.toFixed(1)}x the thread's ${conversation} B of messages`);
});

const status = suite('models: status');

status('GET /api/models/status names the provider and labels the offline model', async () => {
  const s = await setup();
  const res = await s.get('/api/models/status');
  assert.is(res.status, 200);
  assert.is(typeof res.body.provider, 'string');
  assert.is(typeof res.body.offline, 'boolean');
  const running = await testServer();
  if (running.parts.runner?.provider.offline) assert.equal(res.body, { provider: 'offline', model: 'offline-planner-1', offline: true });
});

list.run();
lookups.run();
thread.run();
stored.run();
status.run();
