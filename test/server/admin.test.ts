import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { emailTool } from '../../server/runner/tools/email.ts';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';

/** A user with an agent, two threads (one queued, one with a draft waiting for approval), and the admin's token. */
async function setup() {
  const { parts } = await testServer();
  const user = await newUser('admin-view');
  const agent = await newAgent(user.id, `Overseen ${Date.now().toString(36)}`);
  const admin = await adminToken();
  const post = (path: string, body: unknown = {}) => call(path, { token: user.token, body });
  const queued = (await post(`/api/threads/${agent.id}/create-new-thread`, { user_text: 'Sort the invoices' })).body;
  const drafted = (await post(`/api/threads/${agent.id}/create-new-thread`, { user_text: 'Answer Alice' })).body;
  await post(`/api/threads/${drafted.id}/remove-from-schedule`);
  await draft(drafted.id, agent, user.id);
  return { parts, user, agent, admin, queued, drafted };
}

async function draft(threadId: number, agent: { id: number; name: string }, ownerId: number, text = 'Dear Alice, done.') {
  const { parts } = await testServer();
  await emailTool.run({ to: 'alice@example.test', subject: 'Done', text }, {
    db: parts.db, bus: parts.bus, agent: { id: agent.id, owner_id: ownerId, name: agent.name, email_prefix: null },
    threadId, signal: new AbortController().signal, mailDomain: parts.config.mailDomain, computer: null,
  });
}

/** Every admin route answers 403 {detail} to a user: with their own token, and when impersonating someone. */
async function assertAdminOnly(method: string, path: string, token: string, otherUserId: number) {
  const own = await call(path, { method, token });
  assert.is(own.status, 403, `${method} ${path}`);
  assert.is(own.body.detail, 'Forbidden: Admins only');
  const acting = await call(path, { method, token, headers: { 'X-Impersonate-User-Id': String(otherUserId) } });
  assert.is(acting.status, 403, `${method} ${path} impersonating`);
  assert.type(acting.body.detail, 'string');
  assert.is((await call(path, { method })).status, 401, `${method} ${path} without a token`);
}

const overview = suite('admin: agents overview');

overview('lists every user’s agents with state, counts and last activity, the most recently active first', async () => {
  const { user, agent, admin, parts } = await setup();
  const other = await newUser('admin-view-other');
  const quiet = await newAgent(other.id, 'Quiet one');
  // The quiet agent was active long ago; the overseen one's threads just changed.
  await parts.db.query("UPDATE agents SET updated_at = now() - interval '3 days' WHERE id = $1", [quiet.id]);
  // 'stop' (set here, not left to the default): with play or fast the test server's runner would take the
  // queued thread while this test counts it.
  await parts.db.query("UPDATE agents SET target_run_state = 'stop' WHERE id = $1", [agent.id]);

  const res = await call('/api/admin/agents', { token: admin });
  assert.is(res.status, 200);
  const rows: any[] = res.body;
  const times = rows.map((r) => Date.parse(r.updated_at));
  assert.equal(times, [...times].sort((a, b) => b - a), 'sorted by updated_at descending');
  const mine = rows.find((r) => r.id === agent.id);
  assert.equal(mine, {
    id: agent.id, name: agent.name, owner_id: user.id, owner_email: user.email, target_run_state: 'stop', agent_running: false,
    number_scheduled_threads: 1, number_threads_requiring_approval: 1, updated_at: mine.updated_at,
  });
  const lastThread = await parts.db.one('SELECT max(updated_at) AS at FROM threads WHERE agent_id = $1', [agent.id]);
  assert.is(Date.parse(mine.updated_at), new Date(lastThread!.at).getTime(), 'a thread’s change counts as the agent’s activity');
  const old = rows.find((r) => r.id === quiet.id);
  assert.is(old.target_run_state, 'stop');
  assert.is(old.number_scheduled_threads, 0);
  assert.ok(rows.indexOf(mine) < rows.indexOf(old));
  assert.ok(Date.now() - Date.parse(old.updated_at) > 2.9 * 86_400_000);
});

overview('is for admins only, also while an admin impersonates a user', async () => {
  const { user, admin } = await setup();
  const other = await newUser('admin-view-other');
  await assertAdminOnly('GET', '/api/admin/agents', user.token, other.id);
  const acting = await call('/api/admin/agents', { token: admin, headers: { 'X-Impersonate-User-Id': String(user.id) } });
  assert.is(acting.status, 200);
  assert.ok(acting.body.some((r: any) => r.owner_id !== user.id), 'still every user’s agents');
});

overview.run();

const threads = suite('admin: an agent’s threads');

threads('lists the agent with its threads, newest first, with schedule and approval fields', async () => {
  const { agent, admin, queued, drafted } = await setup();
  const res = await call(`/api/admin/threads?agent_id=${agent.id}`, { token: admin });
  assert.is(res.status, 200);
  assert.is(res.body.agent.id, agent.id);
  assert.is(res.body.agent.name, agent.name);
  assert.is(res.body.agent.number_threads_requiring_approval, 1);
  assert.equal(res.body.threads.map((t: any) => t.id), [drafted.id, queued.id]);
  const [d, q] = res.body.threads;
  assert.is(d.approval_required, true);
  assert.is(d.schedule_sequence, null);
  assert.is(q.approval_required, false);
  assert.is(q.schedule_sequence, 1);
  assert.is(q.name, 'Sort the invoices');
  assert.is(q.thread_running, false);
  assert.type(q.updated_at, 'string');
});

threads('needs an existing agent id; admins only', async () => {
  const { user, admin } = await setup();
  const missing = await call('/api/admin/threads', { token: admin });
  assert.is(missing.status, 422);
  assert.equal(missing.body.detail[0].loc, ['query', 'agent_id']);
  for (const id of ['99999999', 'abc', '-1', '1.5']) {
    const res = await call(`/api/admin/threads?agent_id=${id}`, { token: admin });
    assert.is(res.status, 404, id);
    assert.is(res.body.detail, 'Agent not found');
  }
  const own = await newAgent(user.id);
  await assertAdminOnly('GET', `/api/admin/threads?agent_id=${own.id}`, user.token, (await newUser()).id);
});

threads.run();

const thread = suite('admin: one thread');

thread('shows the thread with its agent and its steps as history', async () => {
  const { agent, user, admin, drafted } = await setup();
  await call(`/api/threads/${drafted.id}/set-user-input`, { token: user.token, body: { user_text: 'And copy Bob' } });
  const res = await call(`/api/admin/threads/${drafted.id}`, { token: admin });
  assert.is(res.status, 200);
  assert.is(res.body.id, drafted.id);
  assert.is(res.body.agent_id, agent.id);
  assert.is(res.body.agent_name, agent.name);
  assert.is(res.body.owner_email, user.email);
  assert.is(res.body.approval_required, true);
  assert.is(res.body.total_steps, 2);
  assert.equal(res.body.steps.map((s: any) => [s.sequence, s.user_text]), [[1, 'Answer Alice'], [2, 'And copy Bob']]);
  assert.equal(res.body.steps[0].user_files, []);
  assert.equal(res.body.steps[0].tool_calls, []);
});

thread('answers 404 for a missing thread; admins only', async () => {
  const { user, admin, queued } = await setup();
  for (const id of ['99999999', 'x']) {
    const res = await call(`/api/admin/threads/${id}`, { token: admin });
    assert.is(res.status, 404);
    assert.is(res.body.detail, 'Thread not found');
  }
  await assertAdminOnly('GET', `/api/admin/threads/${queued.id}`, user.token, (await newUser()).id);
});

thread.run();

const approval = suite('admin: threads requiring approval');

approval('lists every waiting thread with its agent, the one waiting longest first; approving takes it off', async () => {
  const { parts, agent, user, admin, drafted } = await setup();
  const second = await setup();
  // The first thread has waited a day; the other one since just now.
  await parts.db.query("UPDATE threads SET updated_at = now() - interval '1 day' WHERE id = $1", [drafted.id]);

  const res = await call('/api/admin/threads-requiring-approval', { token: admin });
  assert.is(res.status, 200);
  const rows: any[] = res.body;
  const keys = 'agent_id,agent_name,approval_required,id,needs_help,thread_name,updated_at';
  assert.ok(rows.every((r) => Object.keys(r).sort().join() === keys), JSON.stringify(rows[0]));
  const times = rows.map((r) => Date.parse(r.updated_at));
  assert.equal(times, [...times].sort((a, b) => a - b), 'oldest first');
  const mine = rows.findIndex((r) => r.id === drafted.id);
  const theirs = rows.findIndex((r) => r.id === second.drafted.id);
  assert.ok(mine >= 0 && mine < theirs);
  assert.equal(rows[mine], {
    id: drafted.id, thread_name: 'Answer Alice', agent_id: agent.id, agent_name: agent.name, updated_at: rows[mine].updated_at,
    approval_required: true, needs_help: null,
  });
  assert.not.ok(rows.some((r) => r.id === second.queued.id), 'a thread without a draft is not listed');

  const [message] = (await call(`/api/admin/comm-messages?thread_id=${drafted.id}`, { token: admin })).body;
  assert.is((await call(`/api/admin/comm-messages/${message.id}/queue`, { token: admin, body: {} })).status, 200);
  const after = (await call('/api/admin/threads-requiring-approval', { token: admin })).body;
  assert.not.ok(after.some((r: any) => r.id === drafted.id));
  assert.ok(after.some((r: any) => r.id === second.drafted.id));
  await assertAdminOnly('GET', '/api/admin/threads-requiring-approval', user.token, second.user.id);
});

approval.run();

const removal = suite('admin: deleting a thread');

removal('deletes any user’s thread with its steps and mail, and closes the gap in the queue', async () => {
  const { parts, agent, user, admin, queued, drafted } = await setup();
  const later = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'Later work' } })).body;
  assert.is(later.schedule_sequence, 2);

  // The owner cannot use the admin route, even for their own thread.
  await assertAdminOnly('DELETE', `/api/admin/threads/${queued.id}`, user.token, (await newUser()).id);
  assert.is((await call(`/api/threads/${queued.id}`, { token: user.token })).status, 200);

  const res = await call(`/api/admin/threads/${queued.id}`, { method: 'DELETE', token: admin });
  assert.is(res.status, 204);
  assert.is((await call(`/api/threads/${queued.id}`, { token: user.token })).status, 404);
  assert.is((await call(`/api/threads/${later.id}`, { token: user.token })).body.schedule_sequence, 1, 'the queue is renumbered');

  assert.is((await call(`/api/admin/threads/${drafted.id}`, { method: 'DELETE', token: admin })).status, 204);
  const left = await parts.db.one('SELECT count(*)::int AS n FROM comm_messages WHERE thread_id = $1', [drafted.id]);
  assert.is(left!.n, 0, 'its communication messages went with it');
  const overview = (await call('/api/admin/agents', { token: admin })).body.find((r: any) => r.id === agent.id);
  assert.is(overview.number_threads_requiring_approval, 0);
  assert.is(overview.number_scheduled_threads, 1);

  for (const id of [String(queued.id), '99999999', 'nope']) {
    const again = await call(`/api/admin/threads/${id}`, { method: 'DELETE', token: admin });
    assert.is(again.status, 404, id);
    assert.is(again.body.detail, 'Thread not found');
  }
});

removal.run();
