import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { listAgents } from '../../server/agents/agents.ts';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';

const agents = suite('agents');

agents('an admin impersonating a user creates an agent for that user; the user lists it', async () => {
  const user = await newUser();
  const created = await newAgent(user.id, '  Alice  ');
  assert.is(created.name, 'Alice');
  assert.is(created.owner_id, user.id);
  assert.is(created.target_run_state, 'stop');
  assert.equal(created.threads, []);
  const list = await call('/api/agents/', { token: user.token });
  assert.is(list.status, 200);
  assert.equal(list.body.map((a: any) => a.name), ['Alice']);
  for (const field of [
    'id', 'name', 'agent_running', 'target_run_state', 'cua_client_connected', 'running_state', 'number_scheduled_threads',
    'number_threads_requiring_approval', 'updated_at', 'screenshot_url', 'file_path',
  ]) {
    assert.ok(field in list.body[0], `list item has ${field}`);
  }
});

agents('search filters the list by name', async () => {
  const user = await newUser();
  await newAgent(user.id, 'Research bot');
  await newAgent(user.id, 'Mail sorter');
  const res = await call('/api/agents/?search=MAIL', { token: user.token });
  assert.equal(res.body.map((a: any) => a.name), ['Mail sorter']);
});

agents('lists asked at the same time (one query for all) are each the owner\'s own, filtered by their search', async () => {
  const { parts } = await testServer();
  const users = [await newUser(), await newUser(), await newUser()];
  await newAgent(users[0].id, 'Mail sorter');
  await newAgent(users[0].id, 'Research bot');
  await newAgent(users[1].id, 'Only one');
  const asks: Array<[number, string]> = [
    [users[0].id, ''], [users[1].id, ''], [users[2].id, ''], [users[0].id, 'mail'], [users[0].id, '50%_\\'], [users[1].id, ''],
  ];
  const alone = [];
  for (const [owner, search] of asks) alone.push((await listAgents(parts.db, owner, search)).text);
  const together = (await Promise.all(asks.map(([owner, search]) => listAgents(parts.db, owner, search)))).map((list) => list.text);
  assert.equal(together, alone, 'the batched answers equal the one-at-a-time ones');
  const names = together.map((json) => JSON.parse(json).map((a: { name: string }) => a.name));
  assert.equal(names, [['Mail sorter', 'Research bot'], ['Only one'], [], ['Mail sorter'], [], ['Only one']]);
  // Over HTTP too, with every list asked at once.
  const res = await Promise.all(users.flatMap((u) => [u, u]).map((u) => call('/api/agents/', { token: u.token })));
  assert.equal(res.map((r) => r.body.length), [2, 2, 1, 1, 0, 0]);
});

agents('a list asked after a write answers with it, also while other lists are being read', async () => {
  const user = await newUser();
  const reading = Array.from({ length: 10 }, () => call('/api/agents/', { token: user.token }));
  await newAgent(user.id, 'Fresh');
  const after = await call('/api/agents/', { token: user.token });
  assert.equal(after.body.map((a: { name: string }) => a.name), ['Fresh']);
  await Promise.all(reading);
});

agents('creating and deleting agents is admin-only', async () => {
  const user = await newUser();
  const create = await call('/api/agents/', { token: user.token, body: { name: 'Mine' } });
  assert.is(create.status, 403);
  assert.is(create.body.detail, 'Forbidden: Admins only');
  const agent = await newAgent(user.id);
  assert.is((await call(`/api/agents/${agent.id}`, { method: 'DELETE', token: user.token })).status, 403);
});

agents('an empty or blank name is 422', async () => {
  const admin = await adminToken();
  for (const name of ['', '   ', null, 42]) {
    const res = await call('/api/agents/', { token: admin, body: { name } });
    assert.is(res.status, 422, `name ${JSON.stringify(name)}`);
    assert.equal(res.body.detail[0].loc, ['body', 'name']);
  }
});

agents('a user gets 404 for another user\'s agent, on every agent route', async () => {
  const owner = await newUser();
  const stranger = await newUser();
  const agent = await newAgent(owner.id);
  for (const path of ['', '/system-prompt', '/notes', '/instructions', '/run-state']) {
    const res = await call(`/api/agents/${agent.id}${path}`, { token: stranger.token });
    assert.is(res.status, 404, path);
    assert.is(res.body.detail, 'Agent not found');
  }
  assert.is((await call(`/api/agents/${agent.id}/notes`, { method: 'PUT', token: stranger.token, body: { notes: 'x' } })).status, 404);
  assert.is((await call('/api/agents/999999', { token: owner.token })).status, 404);
  assert.is((await call('/api/agents/abc', { token: owner.token })).status, 404);
});

agents('system prompt, notes and instructions round-trip', async () => {
  const user = await newUser();
  const agent = await newAgent(user.id);
  for (const [path, field] of [['system-prompt', 'system_prompt'], ['notes', 'notes'], ['instructions', 'instructions']]) {
    assert.equal((await call(`/api/agents/${agent.id}/${path}`, { token: user.token })).body, { [field]: '' });
    const put = await call(`/api/agents/${agent.id}/${path}`, { method: 'PUT', token: user.token, body: { [field]: `# ${field}\nText` } });
    assert.is(put.status, 200);
    assert.equal((await call(`/api/agents/${agent.id}/${path}`, { token: user.token })).body, { [field]: `# ${field}\nText` });
    const bad = await call(`/api/agents/${agent.id}/${path}`, { method: 'PUT', token: user.token, body: { [field]: 5 } });
    assert.is(bad.status, 422);
  }
  const detail = await call(`/api/agents/${agent.id}`, { token: user.token });
  assert.is(detail.body.notes, '# notes\nText');
});

agents('run state: run, run_all, stop are returned as set; others are 422', async () => {
  const user = await newUser();
  const agent = await newAgent(user.id);
  for (const state of ['run_all', 'run', 'stop']) {
    const res = await call(`/api/agents/${agent.id}/run-state`, { token: user.token, body: { state } });
    assert.equal(res.body, { state });
    assert.is((await call(`/api/agents/${agent.id}`, { token: user.token })).body.target_run_state, state);
  }
  assert.is((await call(`/api/agents/${agent.id}/run-state`, { token: user.token, body: { state: 'fast' } })).status, 422);
});

agents('stop answers already_stopped for a stopped agent and stopping for a playing one', async () => {
  const user = await newUser();
  const agent = await newAgent(user.id);
  assert.is((await call('/api/agents/stop', { token: user.token, body: { agent_id: agent.id } })).body.result, 'already_stopped');
  assert.equal((await call('/api/agents/start', { token: user.token, body: { agent_id: agent.id } })).body, { state: 'run' });
  const stop = await call('/api/agents/stop', { token: user.token, body: { agent_id: agent.id, force_terminate: true } });
  assert.is(stop.body.result, 'stopping');
  assert.type(stop.body.message, 'string');
});

agents('deleting an agent removes its threads and messages', async () => {
  const user = await newUser();
  const agent = await newAgent(user.id);
  const thread = await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'hello' } });
  assert.is(thread.status, 201);
  const del = await call(`/api/agents/${agent.id}`, { method: 'DELETE', token: await adminToken() });
  assert.is(del.status, 204);
  assert.is((await call(`/api/agents/${agent.id}`, { token: user.token })).status, 404);
  assert.is((await call(`/api/threads/${thread.body.id}`, { token: user.token })).status, 404);
  assert.is((await call(`/api/messages/agent/${agent.id}`, { token: user.token })).status, 404);
});

agents.run();
