import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, newAgent, newUser, openSocket } from './helpers.ts';

const feed = suite('realtime: agent message socket');

feed('pushes created messages for the agent to its owner', async () => {
  const user = await newUser();
  const agent = await newAgent(user.id);
  const socket = await openSocket(`/api/messages/agent/${agent.id}/ws?token=${user.token}`);
  // No wait: the server authenticates and subscribes before it completes the upgrade.
  await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'over the socket' } });
  const event = await socket.next((f) => f.type === 'created');
  assert.is(event.agent_id, agent.id);
  assert.is(event.message.role, 'user');
  assert.is(event.message.user_data.text, 'over the socket');
  assert.is(event.message_id, event.message.id);
  socket.ws.close(1000);
});

feed('a bad token closes with 4401, a foreign agent with 4404', async () => {
  const owner = await newUser();
  const stranger = await newUser();
  const agent = await newAgent(owner.id);
  const bad = await openSocket(`/api/messages/agent/${agent.id}/ws?token=nope`);
  assert.equal(await bad.closedWith(), { code: 4401, reason: 'Invalid or expired token' });
  const foreign = await openSocket(`/api/messages/agent/${agent.id}/ws?token=${stranger.token}`);
  assert.equal(await foreign.closedWith(), { code: 4404, reason: 'Agent not found' });
});

feed.run();

// ---

const hub = suite('realtime: json.webpubsub.azure.v1 thread hub');

async function negotiated() {
  const user = await newUser();
  const agent = await newAgent(user.id);
  const thread = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'first' } })).body;
  const neg = await call('/api/realtime/negotiate', { token: user.token, body: { thread_id: thread.id, hub: 'thread_hub' } });
  return { user, agent, thread, neg };
}

hub('negotiate returns a hub url with a token and the thread group', async () => {
  const { thread, neg } = await negotiated();
  assert.is(neg.status, 200);
  assert.is(neg.body.group, `thread:${thread.id}`);
  assert.match(neg.body.url, /^ws:\/\/localhost:\d+\/api\/realtime\/client\/hubs\/thread_hub\?access_token=[\w-]+\.[\w-]+\.[\w-]+$/);
});

hub('connect, joinGroup with ack, then every new step of the thread is pushed', async () => {
  const { user, thread, neg } = await negotiated();
  const socket = await openSocket(neg.body.url, 'json.webpubsub.azure.v1');
  assert.is(socket.ws.protocol, 'json.webpubsub.azure.v1');
  const connected = await socket.next((f) => f.type === 'system');
  assert.is(connected.event, 'connected');
  assert.is(connected.userId, String(user.id));
  assert.type(connected.connectionId, 'string');

  socket.ws.send(JSON.stringify({ type: 'joinGroup', group: neg.body.group, ackId: 1 }));
  assert.equal(await socket.next((f) => f.type === 'ack'), { type: 'ack', ackId: 1, success: true });

  await call(`/api/threads/${thread.id}/set-user-input`, { token: user.token, body: { user_text: 'second' } });
  const message = await socket.next((f) => f.type === 'message');
  assert.is(message.from, 'group');
  assert.is(message.group, neg.body.group);
  assert.is(message.dataType, 'json');
  assert.is(message.data.type, 'step');
  assert.is(message.data.data.sequence, 2);
  assert.is(message.data.data.user_text, 'second');

  socket.ws.send(JSON.stringify({ type: 'joinGroup', group: neg.body.group, ackId: 1 }));
  const dup = await socket.next((f) => f.type === 'ack' && f.success === false);
  assert.is(dup.error.name, 'Duplicate');
  socket.ws.close(1000);
});

hub('joining another thread\'s group or publishing is Forbidden', async () => {
  const { neg } = await negotiated();
  const other = await negotiated();
  const socket = await openSocket(neg.body.url, 'json.webpubsub.azure.v1');
  socket.ws.send(JSON.stringify({ type: 'joinGroup', group: other.neg.body.group, ackId: 7 }));
  const denied = await socket.next((f) => f.type === 'ack');
  assert.is(denied.success, false);
  assert.is(denied.error.name, 'Forbidden');
  socket.ws.send(JSON.stringify({ type: 'sendToGroup', group: neg.body.group, data: {}, ackId: 8 }));
  assert.is((await socket.next((f) => f.ackId === 8)).error.name, 'Forbidden');
  socket.ws.close(1000);
});

hub('a malformed frame is declined with system/disconnected and a close', async () => {
  const { neg } = await negotiated();
  const socket = await openSocket(neg.body.url, 'json.webpubsub.azure.v1');
  socket.ws.send('{not json');
  const bye = await socket.next((f) => f.type === 'system' && f.event === 'disconnected');
  assert.match(bye.message, /Invalid frame/);
  assert.is((await socket.closedWith())!.code, 1008);
});

hub('a bad access token closes with 4401; negotiate for a foreign thread is 404', async () => {
  const { neg } = await negotiated();
  const forged = neg.body.url.replace(/access_token=.*/, 'access_token=abc.def.ghi');
  const socket = await openSocket(forged, 'json.webpubsub.azure.v1');
  assert.is((await socket.closedWith())!.code, 4401);
  const stranger = await newUser();
  const res = await call('/api/realtime/negotiate', { token: stranger.token, body: { thread_id: Number(neg.body.group.split(':')[1]), hub: 'thread_hub' } });
  assert.is(res.status, 404);
});

hub('the hub requires its subprotocol', async () => {
  const { neg } = await negotiated();
  try {
    await openSocket(neg.body.url);
    assert.unreachable('connected without the subprotocol');
  } catch (err) {
    assert.match(String(err), /400/);
  }
});

hub.run();
