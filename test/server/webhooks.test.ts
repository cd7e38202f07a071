// Webhooks (issue 46) on the real server and database: endpoints and their secrets, the addresses refused, events
// of real runs delivered signed (the standardwebhooks package verifies them), the agent filter, retries, the
// failures a receiver can cause (slow, huge, redirecting), the log, a test event, a redelivery, and an endpoint
// turned off after 3 days of failures. The server's deliverer is swapped for one with a short timeout and an
// in-memory DNS (the addresses a name resolves to are the test's to say).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createOffline } from '../../server/models/offline.ts';
import { Deliverer } from '../../server/webhooks/index.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';
import { swapRunner, waitFor } from './runner-helpers.ts';
import { startReceiver } from './webhook-receiver.ts';

const quiet = { error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };
const names = new Map<string, string[]>();
const told: { to: string; subject: string; text: string }[] = [];
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const hooks = suite('webhooks');

hooks.before(async () => {
  const { parts } = await testServer();
  parts.config.webhookAllowPrivate = true; // the receiver is on loopback; the refusals' test turns it off
  await parts.webhooks!.stop();
  parts.webhooks = new Deliverer({
    db: parts.db, bus: parts.bus, box: parts.secrets!, log: quiet, origin: () => 'https://aw.example.test',
    allowPrivate: () => parts.config.webhookAllowPrivate, timeoutMs: 1500,
    tellOwner: async (to, subject, text) => void told.push({ to, subject, text }),
    resolve: async (host) => (names.get(host) ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
  });
  parts.webhooks.start();
  receiver = await startReceiver();
});

hooks.after(async () => {
  await (await testServer()).parts.runner?.stop();
  await receiver.close();
});

async function endpoint(token: string, body: Record<string, unknown>) {
  const res = await call('/api/webhooks', { token, body });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const deliveries = async (token: string, id: number) => (await call(`/api/webhooks/${id}/deliveries`, { token })).body;
const settled = (token: string, id: number, count = 1) => waitFor(async () => {
  const log = await deliveries(token, id);
  return log.total >= count && log.deliveries.every((d: any) => d.attempt > 0 && d.last_attempt_at) ? log.deliveries : null;
}, 10_000, `endpoint ${id}'s deliveries to be tried`);

hooks('an endpoint is made with its secret, shown once: the list, the audit trail and the database never show it', async () => {
  const user = await newUser('hooks');
  const made = await endpoint(user.token, { url: receiver.url('/secret'), events: ['run.started', 'run.failed', 'run.started'] });
  assert.match(made.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.is(made.secret_prefix, made.secret.slice(0, 9));
  assert.equal(made.events, ['run.started', 'run.failed']);
  assert.equal([made.enabled, made.agent_id, made.disabled_reason, made.failing_since], [true, null, null, null]);
  const list = await call('/api/webhooks', { token: user.token });
  assert.equal(list.body.map((e: any) => e.id), [made.id]);
  assert.not.ok('secret' in list.body[0]);
  const { db } = (await testServer()).parts;
  const [row] = await db.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [made.id]);
  assert.not.ok(row.secret.includes(made.secret.slice(6)), 'sealed at rest');
  const audit = await db.query<{ detail: unknown }>(`SELECT detail FROM audit_events WHERE action = 'webhook.create' AND target_id = $1`, [String(made.id)]);
  assert.is(audit.length, 1);
  assert.not.ok(JSON.stringify(audit).includes(made.secret.slice(6)));

  // Bad input: a clear 422 each, and nothing made.
  for (const [body, msg] of [
    [{ url: receiver.url(), events: [] }, /^events: choose one or more of run\.started, run\.finished/],
    [{ url: receiver.url(), events: ['run.exploded'] }, /^events: /],
    [{ url: receiver.url(), events: ['run.started'], agent_id: 'x' }, /^agent_id: /],
    [{ url: receiver.url(), events: ['run.started'], agent_id: 999999 }, /^agent_id: no such agent/],
  ] as const) {
    const res = await call('/api/webhooks', { token: user.token, body });
    assert.is(res.status, 422);
    assert.match(res.body.detail[0].msg, msg);
  }
  assert.is((await call('/api/webhooks', { token: user.token })).body.length, 1);
  // Another user sees none of it.
  const other = await newUser('hooks-other');
  assert.equal((await call('/api/webhooks', { token: other.token })).body, []);
  for (const [path, method] of [[`/api/webhooks/${made.id}`, 'PATCH'], [`/api/webhooks/${made.id}`, 'DELETE'], [`/api/webhooks/${made.id}/test`, 'POST'],
    [`/api/webhooks/${made.id}/deliveries`, 'GET']] as const) {
    const res = await call(path, { token: other.token, method, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
    assert.equal([res.status, res.body.detail], [404, 'Webhook not found'], `${method} ${path}`);
  }
});

hooks('addresses of this machine or a private network are refused with a 422 naming why, and when a name turns private later', async () => {
  const user = await newUser('hooks-ssrf');
  const { parts } = await testServer();
  parts.config.webhookAllowPrivate = false;
  try {
    for (const [url, msg] of [
      ['http://127.0.0.1:8080/hook', /^url: 127\.0\.0\.1 is a loopback, private or special address \(WEBHOOK_ALLOW_PRIVATE=1 allows it\)$/],
      ['http://2130706433/', /^url: 127\.0\.0\.1 is /], ['http://0x7f.1/', /^url: 127\.0\.0\.1 is /], ['http://0.0.0.0/', /^url: 0\.0\.0\.0 is /],
      ['http://10.1.2.3/', /10\.1\.2\.3 is/], ['http://172.16.0.1/', /172\.16\.0\.1 is/], ['http://192.168.1.1/', /192\.168\.1\.1 is/],
      ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is/], ['http://100.64.0.1/', /100\.64\.0\.1 is/],
      ['http://[::1]/', /::1 is/], ['http://[::ffff:127.0.0.1]/', /::ffff:7f00:1 is/], ['http://[fd00:ec2::254]/', /fd00:ec2::254 is/],
      ['http://[fe80::1]/', /fe80::1 is/], ['http://localhost:1/', /^url: localhost resolves to (127\.0\.0\.1|::1), a loopback/],
      ['ftp://example.com/', /^url: an http or https address$/], ['not a url', /^url: an http or https address$/],
      ['http://user:pass@93.184.216.34/', /^url: no user name or password/],
    ] as const) {
      const res = await call('/api/webhooks', { token: user.token, body: { url, events: ['run.started'] } });
      assert.is(res.status, 422, url);
      assert.match(res.body.detail[0].msg, msg, url);
    }
    // A public address is fine (nothing is sent until there is an event); changing it to a private one is refused.
    const made = await endpoint(user.token, { url: 'http://93.184.216.34/hook', events: ['run.started'] });
    const patched = await call(`/api/webhooks/${made.id}`, { token: user.token, method: 'PATCH', body: { url: 'http://10.0.0.1/' } });
    assert.is(patched.status, 422);
    assert.is((await call('/api/webhooks', { token: user.token })).body[0].url, 'http://93.184.216.34/hook', 'unchanged');

    // A name checked when set may resolve elsewhere later: each attempt checks the address it connects to.
    await parts.db.query(`UPDATE webhook_endpoints SET url = 'http://rebind.test/hook' WHERE id = $1`, [made.id]);
    names.set('rebind.test', ['93.184.216.34', '10.0.0.7']);
    assert.is((await call(`/api/webhooks/${made.id}/test`, { token: user.token, body: {} })).status, 201);
    const [d] = await settled(user.token, made.id);
    assert.is(d.status, 'pending', 'tried again later');
    assert.is(d.error, 'rebind.test resolves to 10.0.0.7, a loopback, private or special address (WEBHOOK_ALLOW_PRIVATE=1 allows it)');
    assert.is(d.response_code, null);
  } finally {
    parts.config.webhookAllowPrivate = true;
  }
});

hooks('real runs reach the endpoint signed: started, finished, a help request, for the agents it follows', async () => {
  await swapRunner({ provider: createOffline() });
  const user = await newUser('hooks-runs');
  const [a, b] = [await newAgent(user.id, 'Hooked'), await newAgent(user.id, 'Other')];
  const all = await endpoint(user.token, { url: receiver.url('/all'), events: ['run.started', 'run.finished', 'run.needs_help'] });
  const onlyB = await endpoint(user.token, { url: receiver.url('/only-b'), events: ['run.started'], agent_id: b.id });
  assert.is(onlyB.agent_name, 'Other');
  const send = async (agentId: number, text: string) =>
    (await call(`/api/threads/${agentId}/create-new-thread`, { token: user.token, body: { user_text: text } })).body;
  const play = (agentId: number) => call(`/api/agents/${agentId}/run-state`, { token: user.token, body: { state: 'run_all' } });

  const report = await send(a.id, 'write a report Weekly check: all parts up');
  await play(a.id);
  const seen = (path: string, type: string) => waitFor(() => receiver.got.find((r) => r.path === path && r.json.type === type), 10_000, `${type} at ${path}`);
  const started = await seen('/all', 'run.started');
  const finished = await seen('/all', 'run.finished');
  for (const r of [started, finished]) {
    const payload = receiver.verify(r, all.secret) as any; // throws unless the signature is right
    assert.is(payload.data.thread_id, report.id);
    assert.match(String(r.headers['webhook-id']), /^msg_[0-9a-f]{32}$/);
    assert.is(r.headers['content-type'], 'application/json');
  }
  assert.throws(() => receiver.verify(started, 'whsec_' + Buffer.alloc(24, 1).toString('base64')), 'another secret does not verify');
  assert.is.not(started.headers['webhook-id'], finished.headers['webhook-id']);
  const data = started.json.data;
  assert.equal([data.agent_id, data.agent_name, data.thread_id, started.json.type], [a.id, 'Hooked', report.id, 'run.started']);
  assert.ok(Number.isInteger(data.run_id));
  assert.equal(data.links, {
    agent: `https://aw.example.test/agent/${a.id}`, thread: `https://aw.example.test/agent/${a.id}?thread=${report.id}`,
    run: `https://aw.example.test/replay/${data.run_id}`, desktop: `https://aw.example.test/agent/${a.id}?control=1`,
  });
  assert.is(finished.json.data.outcome, 'done');
  assert.is(finished.json.data.run_id, data.run_id);
  assert.ok(Date.parse(started.json.timestamp) <= Date.parse(finished.json.timestamp));

  // A help request carries the question and the link that opens the desktop for the owner to take control.
  const asking = await send(a.id, 'ask me for help with "Which account should I use?"');
  await play(a.id);
  const help = await seen('/all', 'run.needs_help');
  receiver.verify(help, all.secret);
  assert.equal([help.json.data.thread_id, help.json.data.question, help.json.data.reason], [asking.id, 'Which account should I use?', 'asked']);
  assert.is(help.json.data.links.desktop, `https://aw.example.test/agent/${a.id}?control=1`);

  // The agent filter: only agent b's run reaches /only-b.
  const other = await send(b.id, 'write a report Other: fine');
  await play(b.id);
  const bStarted = await seen('/only-b', 'run.started');
  assert.is(bStarted.json.data.thread_id, other.id);
  receiver.verify(bStarted, onlyB.secret);
  await waitFor(() => receiver.got.find((r) => r.path === '/all' && r.json.type === 'run.finished' && r.json.data.agent_id === b.id), 10_000, 'b done');
  assert.equal(receiver.got.filter((r) => r.path === '/only-b').map((r) => r.json.data.agent_id), [b.id]);
  // /all: the report's run started and finished, the asking run started and waits, b's run started and finished.
  const logged = await settled(user.token, all.id, 6);
  assert.is(logged.length, 6);
  assert.ok(logged.every((d: any) => d.status === 'delivered' && d.response_code === 204 && d.attempt === 1 && d.latency_ms >= 0));
});

hooks('a failed attempt is retried; slow, huge and redirecting answers are failures in the log, and nothing else happens', async () => {
  const user = await newUser('hooks-fail');
  receiver.answer((path, n) => {
    if (path === '/flaky') return n === 1 ? { status: 500 } : { status: 200 };
    if (path === '/slow') return 'hang';
    if (path === '/huge') return { status: 200, body: 'x'.repeat(100 * 1024) };
    if (path === '/redirect') return { status: 302, location: receiver.url('/flaky') };
    return { status: 204 };
  });
  const flaky = await endpoint(user.token, { url: receiver.url('/flaky'), events: ['run.started'] });
  assert.is((await call(`/api/webhooks/${flaky.id}/test`, { token: user.token, body: {} })).status, 201);
  const retried = await waitFor(async () => {
    const [d] = (await deliveries(user.token, flaky.id)).deliveries;
    return d.status === 'delivered' ? d : null;
  }, 15_000, 'the retry after a 500');
  assert.equal([retried.attempt, retried.response_code, retried.error], [2, 200, null]);
  const tries = receiver.got.filter((r) => r.path === '/flaky');
  assert.is(tries.length, 2);
  assert.is(tries[0].headers['webhook-id'], tries[1].headers['webhook-id'], 'a retry is the same message');
  assert.is(tries[0].body, tries[1].body);
  assert.ok(tries[1].at - tries[0].at >= 2000, 'after a backoff');
  assert.is((await call('/api/webhooks', { token: user.token })).body.find((e: any) => e.id === flaky.id).failing_since, null, 'working again');

  for (const [path, error, code] of [
    ['/slow', 'no answer within 1.5 s', null], ['/huge', 'the answer was larger than 64 KB', 200],
    ['/redirect', `redirects are not followed (302 to ${receiver.url('/flaky')})`, 302],
  ] as const) {
    const made = await endpoint(user.token, { url: receiver.url(path), events: ['run.started'] });
    await call(`/api/webhooks/${made.id}/test`, { token: user.token, body: {} });
    const [d] = await settled(user.token, made.id);
    assert.equal([d.status, d.attempt, d.error, d.response_code], ['pending', 1, error, code], path);
    assert.ok(Date.parse(d.next_attempt_at) > Date.now(), 'retried later');
    const listed = (await call('/api/webhooks', { token: user.token })).body.find((e: any) => e.id === made.id);
    assert.ok(listed.failing_since && listed.enabled, 'failing, still on');
    await call(`/api/webhooks/${made.id}`, { token: user.token, method: 'DELETE' });
  }
  assert.is(receiver.got.filter((r) => r.path === '/flaky').length, 2, 'the redirect was not followed');
  assert.is((await call('/api/health')).status, 200);
  receiver.answer(() => ({ status: 204 }));
});

hooks('a test event and a redelivery: the same event again, newest first in the log', async () => {
  const user = await newUser('hooks-log');
  const made = await endpoint(user.token, { url: receiver.url('/log'), events: ['run.finished'] });
  const test = await call(`/api/webhooks/${made.id}/test`, { token: user.token, body: {} });
  assert.equal([test.status, test.body.type, test.body.status, test.body.attempt], [201, 'webhook.test', 'pending', 0]);
  const [first] = await settled(user.token, made.id);
  const again = await call(`/api/webhooks/deliveries/${first.id}/redeliver`, { token: user.token, body: {} });
  assert.is(again.status, 201);
  assert.equal([again.body.event_id, again.body.type], [first.event_id, 'webhook.test']);
  const log = await settled(user.token, made.id, 2);
  assert.equal(log.map((d: any) => d.id), [again.body.id, first.id]);
  const bodies = receiver.got.filter((r) => r.path === '/log');
  assert.is(bodies.length, 2);
  assert.is(bodies[0].body, bodies[1].body);
  assert.equal(bodies[0].json.data, { endpoint_id: made.id, message: 'A test event from Agent Workspace.' });
  receiver.verify(bodies[1], made.secret);
  const other = await newUser('hooks-log-other');
  const refused = await call(`/api/webhooks/deliveries/${first.id}/redeliver`, { token: other.token, body: {} });
  assert.equal([refused.status, refused.body.detail], [404, 'Delivery not found']);
  const page = await call(`/api/webhooks/${made.id}/deliveries?limit=1&offset=1`, { token: user.token });
  assert.equal([page.body.total, page.body.deliveries.map((d: any) => d.id)], [2, [first.id]]);
});

hooks('an endpoint failing for 3 days is turned off and its owner told; turning it on again starts afresh', async () => {
  const user = await newUser('hooks-off');
  receiver.answer((path) => (path === '/down' ? { status: 503 } : { status: 204 }));
  const made = await endpoint(user.token, { url: receiver.url('/down'), events: ['run.started'] });
  const { db } = (await testServer()).parts;
  await db.query(`UPDATE webhook_endpoints SET failing_since = now() - interval '3 days 1 minute' WHERE id = $1`, [made.id]);
  await call(`/api/webhooks/${made.id}/test`, { token: user.token, body: {} });
  const listed = async () => (await call('/api/webhooks', { token: user.token })).body.find((e: any) => e.id === made.id);
  const off = await waitFor(async () => ((await listed()).enabled ? null : listed()), 10_000, 'the endpoint turned off');
  assert.match(off.disabled_reason, /^Failing since \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  const mail = await waitFor(() => told.find((t) => t.to === user.email), 5000, 'the owner told');
  assert.is(mail.subject, 'A webhook endpoint was turned off');
  assert.match(mail.text, new RegExp(`${receiver.url('/down').replace(/[.?]/g, '\\$&')} has failed every delivery since`));
  assert.match(mail.text, /https:\/\/aw\.example\.test\/settings\/webhooks/);
  // Turned off, it is sent nothing: a test event fails at once without a request.
  const before = receiver.got.filter((r) => r.path === '/down').length;
  await call(`/api/webhooks/${made.id}/test`, { token: user.token, body: {} });
  const [refused] = await settled(user.token, made.id, 2);
  assert.equal([refused.status, refused.error, receiver.got.filter((r) => r.path === '/down').length], ['failed', 'the endpoint is turned off', before]);
  const on = await call(`/api/webhooks/${made.id}`, { token: user.token, method: 'PATCH', body: { enabled: true } });
  assert.equal([on.status, on.body.enabled, on.body.disabled_reason, on.body.failing_since], [200, true, null, null]);
  assert.is(told.filter((t) => t.to === user.email).length, 1, 'told once');
  const bad = await call(`/api/webhooks/${made.id}`, { token: user.token, method: 'PATCH', body: { enabled: 'yes' } });
  assert.is(bad.status, 422);
  receiver.answer(() => ({ status: 204 }));
});

hooks('the log keeps settled deliveries for 30 days; pending ones stay until they are settled', async () => {
  const user = await newUser('hooks-prune');
  const made = await endpoint(user.token, { url: receiver.url('/prune'), events: ['run.started'] });
  const { parts } = await testServer();
  const old = (status: string) => parts.db.query(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, type, payload, status, created_at, next_attempt_at)
     VALUES ($1, 'msg_old', 'run.started', '{}', $2, now() - interval '31 days', CASE WHEN $2 = 'pending' THEN now() + interval '1 hour' END)`,
    [made.id, status]);
  await old('delivered');
  await old('failed');
  await old('pending');
  await call(`/api/webhooks/${made.id}/test`, { token: user.token, body: {} });
  await waitFor(async () => (await deliveries(user.token, made.id)).deliveries.find((d: any) => d.type === 'webhook.test' && d.attempt), 10_000, 'sent');
  assert.ok((await (parts.webhooks as Deliverer).prune()) >= 2);
  const left = (await deliveries(user.token, made.id)).deliveries.map((d: any) => [d.type, d.status]);
  assert.equal(left, [['webhook.test', 'delivered'], ['run.started', 'pending']]);
});

hooks.run();
