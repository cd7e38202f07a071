import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, newAgent, newUser, openSocket, testServer } from './helpers.ts';
import { listSteps, LIST_STEPS } from '../../server/threads/threads.ts';

async function setup() {
  const user = await newUser();
  const agent = await newAgent(user.id);
  const post = (path: string, body: unknown = {}) => call(path, { token: user.token, body });
  const get = (path: string) => call(path, { token: user.token });
  const newThread = async (text: string) => (await post(`/api/threads/${agent.id}/create-new-thread`, { user_text: text })).body;
  const queue = async () =>
    (await get(`/api/agents/${agent.id}`)).body.threads
      .filter((t: any) => t.schedule_sequence !== null)
      .sort((a: any, b: any) => a.schedule_sequence - b.schedule_sequence)
      .map((t: any) => [t.name, t.schedule_sequence]);
  return { user, agent, post, get, newThread, queue };
}

const threads = suite('threads');

threads('create-new-thread makes a named, scheduled thread with the first step and message', async () => {
  const { agent, get, newThread } = await setup();
  const thread = await newThread('Open a terminal\nand more');
  assert.is(thread.agent_id, agent.id);
  assert.is(thread.name, 'Open a terminal');
  assert.is(thread.schedule_sequence, 1);
  assert.is(thread.thread_running, false);
  assert.is(thread.error_message, '');
  const steps = await get(`/api/threads/${thread.id}/steps?limit=100&offset=0`);
  assert.is(steps.status, 200);
  assert.is(steps.body.total_count, 1);
  assert.is(steps.body.steps[0].sequence, 1);
  assert.is(steps.body.steps[0].user_text, 'Open a terminal\nand more');
  const feed = await get(`/api/messages/agent/${agent.id}?page=1&page_size=50`);
  assert.is(feed.body.total_count, 1);
  assert.is(feed.body.messages[0].role, 'user');
  assert.is(feed.body.messages[0].user_data.text, 'Open a terminal\nand more');
});

threads('a first message with files only, and one with quotes and backslashes, each start a thread at the end of the queue', async () => {
  const { agent, get, post, queue } = await setup();
  const files = (await post(`/api/threads/${agent.id}/create-new-thread`, { user_text: ' ', user_files: ['agent-1/x/a "b".txt'] })).body;
  const odd = 'Say "hi" \\ {1,2} \u00e9\nnext';
  const quoted = (await post(`/api/threads/${agent.id}/create-new-thread`, { user_text: odd })).body;
  assert.equal(await queue(), [['Files uploaded', 1], ['Say "hi" \\ {1,2} \u00e9', 2]]);
  const [step] = (await get(`/api/threads/${files.id}/steps`)).body.steps;
  assert.equal([step.user_text, step.user_files], ['Files uploaded', ['agent-1/x/a "b".txt']]);
  assert.is((await get(`/api/threads/${quoted.id}/steps`)).body.steps[0].user_text, odd);
  const feed = (await get(`/api/messages/agent/${agent.id}`)).body.messages;
  assert.equal(feed.map((m: any) => m.user_data), [{ text: odd, files: [] }, { text: 'Files uploaded', files: ['agent-1/x/a "b".txt'] }]);
});

threads('files-only input is sent as "Files uploaded"; empty input is 422', async () => {
  const { post, newThread } = await setup();
  const thread = await newThread('first');
  const step = await post(`/api/threads/${thread.id}/set-user-input`, { user_text: '  ', user_files: ['agent-1/x/a.txt'] });
  assert.is(step.status, 200);
  assert.is(step.body.user_text, 'Files uploaded');
  assert.equal(step.body.user_files, ['agent-1/x/a.txt']);
  assert.is(step.body.sequence, 2);
  const empty = await post(`/api/threads/${thread.id}/set-user-input`, { user_text: ' ', user_files: [] });
  assert.is(empty.status, 422);
  const badFiles = await post(`/api/threads/${thread.id}/set-user-input`, { user_text: 'x', user_files: [1] });
  assert.is(badFiles.status, 422);
});

threads('set-user-input does not schedule; set-user-input-and-schedule appends to the queue', async () => {
  const { post, get, agent } = await setup();
  const t = (await post('/api/threads/', { agent_id: agent.id, name: 'Plain' })).body;
  assert.is(t.schedule_sequence, null);
  await post(`/api/threads/${t.id}/set-user-input`, { user_text: 'hi' });
  assert.is((await get(`/api/threads/${t.id}`)).body.schedule_sequence, null);
  await post(`/api/threads/${t.id}/set-user-input-and-schedule`, { user_text: 'go' });
  assert.is((await get(`/api/threads/${t.id}`)).body.schedule_sequence, 1);
});

threads('set-user-input-and-schedule keeps the message and its run together: when queueing fails, the message is not kept or told', async () => {
  const { post, get, agent, user } = await setup();
  const { parts } = await testServer();
  const t = (await post('/api/threads/', { agent_id: agent.id, name: 'Together' })).body;
  const feed = await openSocket(`/api/messages/agent/${agent.id}/ws?token=${user.token}`);
  // Queueing this thread (its schedule_sequence set) raises, as a failing database would.
  const name = `refuse_enqueue_${t.id}`;
  await parts.db.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'queueing refused by the test'; END $$`);
  await parts.db.query(`CREATE TRIGGER ${name} BEFORE UPDATE OF schedule_sequence ON threads FOR EACH ROW
    WHEN (NEW.id = ${t.id} AND NEW.schedule_sequence IS DISTINCT FROM OLD.schedule_sequence) EXECUTE FUNCTION ${name}()`);
  let failed;
  try {
    failed = await post(`/api/threads/${t.id}/set-user-input-and-schedule`, { user_text: 'lost with its run' });
  } finally {
    await parts.db.query(`DROP TRIGGER ${name} ON threads`);
    await parts.db.query(`DROP FUNCTION ${name}()`);
  }
  assert.is(failed.status, 500);
  const steps = (await get(`/api/threads/${t.id}/steps`)).body;
  assert.is(steps.total_count, 0, 'no step of the message');
  assert.is((await get(`/api/messages/agent/${agent.id}`)).body.total_count, 0, 'no chat message');
  assert.is((await get(`/api/threads/${t.id}`)).body.schedule_sequence, null);

  // The same call goes through once queueing works; its message is the first the feed tells.
  const ok = await post(`/api/threads/${t.id}/set-user-input-and-schedule`, { user_text: 'kept with its run' });
  assert.is(ok.status, 200);
  assert.is(ok.body.sequence, 1);
  assert.is((await get(`/api/threads/${t.id}`)).body.schedule_sequence, 1);
  await feed.next((f) => JSON.stringify(f).includes('kept with its run'));
  assert.not.ok(feed.frames.some((f) => JSON.stringify(f).includes('lost with its run')), 'the failed message never reached the feed');
  feed.ws.close();
});

threads('the queue stays a gapless 1..n through moves, removals and deletes', async () => {
  const { post, newThread, queue, user } = await setup();
  const a = await newThread('a');
  const b = await newThread('b');
  const c = await newThread('c');
  assert.equal(await queue(), [['a', 1], ['b', 2], ['c', 3]]);
  await post(`/api/threads/${c.id}/set-schedule-sequence?target_sequence=1`);
  assert.equal(await queue(), [['c', 1], ['a', 2], ['b', 3]]);
  await post(`/api/threads/${c.id}/set-schedule-sequence?target_sequence=99`);
  assert.equal(await queue(), [['a', 1], ['b', 2], ['c', 3]]);
  // The spec's drop rule: onto b from below asks for b's sequence + 1 and lands just above b.
  await post(`/api/threads/${a.id}/set-schedule-sequence?target_sequence=3`);
  assert.equal(await queue(), [['b', 1], ['a', 2], ['c', 3]]);
  // Onto b from above asks for b's sequence and lands just below it.
  await post(`/api/threads/${c.id}/set-schedule-sequence?target_sequence=1`);
  assert.equal(await queue(), [['c', 1], ['b', 2], ['a', 3]]);
  // c (bottom of the list, sequence 1) dropped onto b (sequence 2) from below: just above b.
  await post(`/api/threads/${c.id}/set-schedule-sequence?target_sequence=3`);
  assert.equal(await queue(), [['b', 1], ['c', 2], ['a', 3]]);
  // a (top) dropped onto c from above: just below c.
  await post(`/api/threads/${a.id}/set-schedule-sequence?target_sequence=2`);
  assert.equal(await queue(), [['b', 1], ['a', 2], ['c', 3]]);
  await post(`/api/threads/${a.id}/remove-from-schedule`);
  assert.equal(await queue(), [['b', 1], ['c', 2]]);
  const del = await call(`/api/threads/${b.id}`, { method: 'DELETE', token: user.token });
  assert.is(del.status, 204);
  assert.equal(await queue(), [['c', 1]]);
  const bad = await post(`/api/threads/${c.id}/set-schedule-sequence?target_sequence=zero`);
  assert.is(bad.status, 422);
  assert.equal(bad.body.detail[0].loc, ['query', 'target_sequence']);
});

threads('stop and run-state set the thread target state', async () => {
  const { post, get, newThread } = await setup();
  const t = await newThread('x');
  assert.is((await post(`/api/threads/${t.id}/stop`)).body.target_run_state, 'stop');
  assert.equal((await get(`/api/threads/${t.id}/run-state`)).body, { target_run_state: 'stop', thread_running: false });
  assert.equal((await post(`/api/threads/${t.id}/run-state`, { target_run_state: 'run' })).body, { target_run_state: 'run' });
  assert.is((await post(`/api/threads/${t.id}/run-state`, { target_run_state: 'sideways' })).status, 422);
});

threads('steps page: each step as its row reads, also after the runner changed it (stored page JSON kept up to date)', async () => {
  const { post, get, newThread } = await setup();
  const { parts } = await testServer();
  const t = await newThread('Look "here" \\ and ünïcode ✓');
  await post(`/api/threads/${t.id}/set-user-input`, { user_text: 'second' });
  const rows = () => parts.db.query(
    'SELECT id, thread_id, sequence, reasoning_text, assistant_text, user_text, user_files, tool_calls, run_id, created_at, updated_at ' +
      'FROM thread_steps WHERE thread_id = $1 ORDER BY sequence', [t.id]);
  assert.equal((await get(`/api/threads/${t.id}/steps`)).body.steps, JSON.parse(JSON.stringify(await rows())));
  const calls = [{ id: 'toolu_1', name: 'computer', input: { action: 'left_click', coordinate: [1, 2] }, result: { text: 'ok' } }];
  await parts.db.query(`UPDATE thread_steps SET tool_calls = $2, assistant_text = 'Clicked.', updated_at = now() + interval '1 second'
    WHERE thread_id = $1 AND sequence = 2`, [t.id, JSON.stringify(calls)]);
  const page = (await get(`/api/threads/${t.id}/steps`)).body.steps;
  assert.equal(page, JSON.parse(JSON.stringify(await rows())));
  assert.equal([page[1].assistant_text, page[1].tool_calls], ['Clicked.', calls]);
});

threads('steps page: newest `limit` steps in sequence order, offset skips newer ones', async () => {
  const { post, get, newThread } = await setup();
  const t = await newThread('1');
  for (const text of ['2', '3', '4']) await post(`/api/threads/${t.id}/set-user-input`, { user_text: text });
  const page = await get(`/api/threads/${t.id}/steps?limit=2&offset=0`);
  assert.equal(page.body.steps.map((s: any) => s.user_text), ['3', '4']);
  const older = await get(`/api/threads/${t.id}/steps?limit=2&offset=2`);
  assert.equal(older.body.steps.map((s: any) => s.user_text), ['1', '2']);
  const last = await get(`/api/threads/${t.id}/steps?limit=2&offset=3`);
  assert.equal([last.body.steps.map((s: any) => s.user_text), last.body.total_count], [['1'], 4], 'a short last page');
  const past = await get(`/api/threads/${t.id}/steps?limit=2&offset=4`);
  assert.equal([past.body.steps, past.body.total_count], [[], 4], 'past the end: no steps, the count still');
  assert.is((await get(`/api/threads/${t.id}/steps?limit=0`)).status, 422);
});

threads('steps page: reads as many index entries and rows at 2,000 steps as at 20 (no count of the whole thread)', async () => {
  const { newThread } = await setup();
  const { parts } = await testServer();
  const { db } = parts;
  // Rows the plan's nodes on thread_steps and its index returned, in all: what a page reads, whatever its timing.
  const touched = async (threadId: number) => {
    const [plan] = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${LIST_STEPS.text}`, [threadId, 10, 0]);
    const nodes = (node: any): any[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
    const root = (typeof plan['QUERY PLAN'] === 'string' ? JSON.parse(plan['QUERY PLAN']) : plan['QUERY PLAN'])[0].Plan;
    return nodes(root).filter((n) => n['Relation Name'] === 'thread_steps')
      .reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
  };
  const grow = async (threadId: number, steps: number) => db.query(
    `INSERT INTO thread_steps (thread_id, sequence, user_text) SELECT $1, n, 'step ' || n FROM generate_series(2, $2) n`, [threadId, steps]);
  const small = await newThread('small');
  const large = await newThread('large');
  await grow(small.id, 20);
  await grow(large.id, 2000);
  await db.query('ANALYZE thread_steps');
  const [few, many] = [await touched(small.id), await touched(large.id)];
  assert.ok(few > 0, 'the plan names thread_steps');
  assert.is(many, few, `rows read at 2,000 steps (${many}) against 20 (${few})`);
  const page = await listSteps(db, large.id, 10, 0);
  assert.is(JSON.parse(page.text).total_count, 2000);
});

threads('another user gets 404 on every thread route', async () => {
  const { newThread } = await setup();
  const t = await newThread('private');
  const stranger = await newUser();
  for (const [method, path] of [
    ['GET', ''], ['GET', '/steps'], ['POST', '/set-user-input'], ['POST', '/set-user-input-and-schedule'], ['POST', '/stop'],
    ['POST', '/remove-from-schedule'], ['POST', '/set-schedule-sequence?target_sequence=1'], ['GET', '/run-state'], ['DELETE', ''],
  ]) {
    const res = await call(`/api/threads/${t.id}${path}`, { method, token: stranger.token, body: method === 'POST' ? { user_text: 'x' } : undefined });
    assert.is(res.status, 404, `${method} ${path}`);
  }
  assert.is((await call(`/api/threads/${t.agent_id}/create-new-thread`, { token: stranger.token, body: { user_text: 'x' } })).status, 404);
  assert.is((await call('/api/threads/', { token: stranger.token, body: { agent_id: t.agent_id } })).status, 404);
  assert.is((await call(`/api/messages/agent/${t.agent_id}`, { token: stranger.token })).status, 404);
});

threads('the message feed pages newest first with total_count', async () => {
  const { post, get, newThread, agent } = await setup();
  const t = await newThread('m1');
  await post(`/api/threads/${t.id}/set-user-input`, { user_text: 'm2' });
  await post(`/api/threads/${t.id}/set-user-input`, { user_text: 'm3' });
  const first = await get(`/api/messages/agent/${agent.id}?page=1&page_size=2`);
  assert.equal(first.body.messages.map((m: any) => m.user_data.text), ['m3', 'm2']);
  assert.is(first.body.total_count, 3);
  const second = await get(`/api/messages/agent/${agent.id}?page=2&page_size=2`);
  assert.equal(second.body.messages.map((m: any) => m.user_data.text), ['m1']);
  const latest = await get(`/api/messages/agent/${agent.id}/latest?limit=1`);
  assert.equal(latest.body.map((m: any) => m.user_data.text), ['m3']);
});

threads.run();
