// Web Push and the help request's one-time link (issue 47) on the real server and database. A push service on
// loopback (push-service.ts) checks every push's VAPID JWT against GET /api/push/key and decrypts it with the
// http_ece package and the fake browser's own keys: a real help request arrives with its title, the question cut
// at 100 characters and the one-time link the e-mail carries too; each device gets only the events it chose; a
// device the service says is gone is deleted, a 500 is retried. The link works once, for its owner, for 30 minutes.
// The server's push sender is swapped for one with short retries (as webhooks.test.ts swaps its deliverer).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ModelProvider } from '../../server/models/types.ts';
import { createOffline } from '../../server/models/offline.ts';
import { draftOutbound } from '../../server/mail/comm-messages.ts';
import { createHelpLink, loadVapid, PushSender } from '../../server/push/index.ts';
import { helpNotifier } from '../../server/supervision/help-notice.ts';
import { SecretBox } from '../../server/system/secret-box.ts';
import { emitThreadEvent } from '../../server/webhooks/index.ts';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';
import { swapRunner, waitFor } from './runner-helpers.ts';
import { startPushService, type Push } from './push-service.ts';

const quiet = { error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };
const ORIGIN = 'https://aw.example.test';
let service: Awaited<ReturnType<typeof startPushService>>;

const push = suite('push');

push.before(async () => {
  const { parts } = await testServer();
  parts.config.webhookAllowPrivate = true; // the push service is on loopback; the refusals' test turns it off
  await parts.push!.stop();
  parts.push = new PushSender({
    db: parts.db, bus: parts.bus, box: parts.secrets!, vapid: parts.vapid!, log: quiet, allowPrivate: () => parts.config.webhookAllowPrivate,
    timeoutMs: 1500, retryDelaysMs: [300, 300],
  });
  parts.push.start();
  const key: string = (await call('/api/push/key', { token: await adminToken() })).body.public_key;
  service = await startPushService(key);
});

push.after(async () => {
  await (await testServer()).parts.runner?.stop();
  await service.close();
});

async function subscribe(token: string, path: string, events: string[], label?: string) {
  const device = service.device(path);
  const res = await call('/api/push/subscriptions', { token, body: { ...device.subscription, events, ...(label === undefined ? {} : { label }) } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return { ...device, id: res.body.id as number, shown: res.body };
}

const pushesTo = (path: string) => service.got.filter((p) => p.path === path);
const arrived = (path: string, type: string) => waitFor(() => pushesTo(path).find((p) => p.note?.type === type), 10_000, `${type} at ${path}`);

/** Runs the offline model on a new thread of the agent until it is waiting for a person. */
async function askForHelp(token: string, agentId: number, question: string) {
  const thread = (await call(`/api/threads/${agentId}/create-new-thread`, { token, body: { user_text: `ask me for help with "${question}"` } })).body;
  await call(`/api/agents/${agentId}/run-state`, { token, body: { state: 'run_all' } });
  const waiting = await waitFor(async () => (await call(`/api/threads/${thread.id}`, { token })).body.needs_help, 10_000, 'the help request');
  return { thread, waiting };
}

push('the VAPID key is made once, sealed in the database, the same for every instance of it', async () => {
  const { parts } = await testServer();
  const user = await newUser('push-key');
  const key = await call('/api/push/key', { token: user.token });
  assert.is(key.status, 200);
  const point = Buffer.from(key.body.public_key, 'base64url');
  assert.equal([point.length, point[0]], [65, 4], 'an uncompressed P-256 point');
  const [row] = await parts.db.query<{ value: string }>(`SELECT value FROM deployment_secrets WHERE name = 'vapid'`);
  assert.ok(SecretBox.isSealed(row.value), 'sealed at rest');
  const again = await loadVapid(parts.db, parts.secrets!, () => 'mailto:x@example.test');
  assert.is(again.publicKey, key.body.public_key, 'another instance of the database loads the same key');
});

push('a device is added, listed, updated by subscribing again, renamed, removed; bad input is a 422; another user\'s is a 404', async () => {
  const user = await newUser('push-devices');
  const first = await subscribe(user.token, '/devices/one', ['run.failed', 'run.needs_help', 'run.failed'], ' Phone ');
  assert.equal(first.shown.events, ['run.needs_help', 'run.failed'], 'each once, in the contract\'s order');
  assert.equal([first.shown.label, first.shown.last_sent_at, first.shown.endpoint_origin], ['Phone', null, service.origin]);
  assert.equal(Object.keys(first.shown).sort(), ['created_at', 'endpoint_origin', 'events', 'id', 'label', 'last_sent_at']);
  // No label: one from the browser's User-Agent.
  const second = service.device('/devices/two');
  const android = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36';
  const made = await call('/api/push/subscriptions', { token: user.token, headers: { 'User-Agent': android }, body: { ...second.subscription, events: [] } });
  assert.equal([made.status, made.body.label, made.body.events], [201, 'Chrome on Android', []]);
  // The same endpoint again (new keys, other events): the same device, updated.
  const fresh = service.device('/devices/one');
  const again = await call('/api/push/subscriptions', {
    token: user.token, body: { ...fresh.subscription, events: ['mail.awaiting_approval'], label: 'Phone' },
  });
  assert.equal([again.status, again.body.id, again.body.events], [200, first.id, ['mail.awaiting_approval']]);
  const list = await call('/api/push/subscriptions', { token: user.token });
  assert.equal(list.body.map((d: any) => d.id), [made.body.id, first.id], 'newest first');
  assert.not.ok(JSON.stringify(list.body).includes('/devices/'), 'the endpoint itself is never shown');
  const patched = await call(`/api/push/subscriptions/${first.id}`, {
    token: user.token, method: 'PATCH', body: { label: 'Work phone', events: ['billing.limit_reached'] },
  });
  assert.equal([patched.status, patched.body.label, patched.body.events], [200, 'Work phone', ['billing.limit_reached']]);
  const { db } = (await testServer()).parts;
  const audit = await db.query<{ action: string }>(
    `SELECT action FROM audit_events WHERE target_type = 'push_device' AND target_id = $1 ORDER BY id`, [String(first.id)]);
  assert.equal(audit.map((a) => a.action), ['push.subscribe', 'push.update', 'push.update']);

  // Bad input: a 422 naming the field, and nothing made.
  const good = service.device('/devices/bad').subscription;
  const offCurve = Buffer.alloc(65, 1);
  offCurve[0] = 4;
  for (const [body, msg] of [
    [{ ...good, endpoint: 'ftp://push.example/x' }, /^endpoint: /],
    [{ ...good, endpoint: 42 }, /^endpoint: /],
    [{ ...good, keys: undefined }, /^keys: p256dh/],
    [{ ...good, keys: { ...good.keys, p256dh: offCurve.toString('base64url') } }, /^keys: p256dh/],
    [{ ...good, keys: { ...good.keys, p256dh: good.keys.p256dh.slice(0, 40) } }, /^keys: p256dh/],
    [{ ...good, keys: { ...good.keys, auth: Buffer.alloc(8).toString('base64url') } }, /^keys: auth/],
    [{ ...good, keys: { ...good.keys, auth: 'not base64url!' } }, /^keys: auth/],
    [{ ...good, events: ['run.started'] }, /^events: a list of any of run\.needs_help, mail\.awaiting_approval, billing\.limit_reached, run\.failed$/],
    [{ ...good, events: 'run.failed' }, /^events: /],
    [{ ...good, events: ['run.failed'], label: 'x'.repeat(101) }, /^label: /],
  ] as const) {
    const res = await call('/api/push/subscriptions', { token: user.token, body: { events: ['run.failed'], ...body } });
    assert.is(res.status, 422, JSON.stringify(body));
    assert.match(res.body.detail[0].msg, msg, JSON.stringify(body));
  }
  const patchBad = await call(`/api/push/subscriptions/${first.id}`, { token: user.token, method: 'PATCH', body: { events: ['webhook.test'] } });
  assert.equal([patchBad.status, patchBad.body.detail[0].loc], [422, ['body', 'events']]);
  // Plain http and private addresses only with WEBHOOK_ALLOW_PRIVATE=1.
  const { parts } = await testServer();
  parts.config.webhookAllowPrivate = false;
  try {
    for (const [endpoint, msg] of [
      [good.endpoint, /^endpoint: the https address of a push service/],
      ['https://127.0.0.1/push', /^endpoint: 127\.0\.0\.1 is a loopback, private or special address/],
      ['https://10.0.0.1/push', /^endpoint: 10\.0\.0\.1 is/],
    ] as const) {
      const res = await call('/api/push/subscriptions', { token: user.token, body: { ...good, endpoint, events: [] } });
      assert.is(res.status, 422, endpoint);
      assert.match(res.body.detail[0].msg, msg, endpoint);
    }
  } finally {
    parts.config.webhookAllowPrivate = true;
  }
  assert.is((await call('/api/push/subscriptions', { token: user.token })).body.length, 2);

  // Another user sees none of it, and cannot touch it.
  const other = await newUser('push-other');
  assert.equal((await call('/api/push/subscriptions', { token: other.token })).body, []);
  for (const [path, method] of [
    [`/api/push/subscriptions/${first.id}`, 'PATCH'], [`/api/push/subscriptions/${first.id}`, 'DELETE'], [`/api/push/subscriptions/${first.id}/test`, 'POST'],
  ] as const) {
    const res = await call(path, { token: other.token, method, body: method === 'PATCH' ? { label: 'mine' } : undefined });
    assert.equal([res.status, res.body.detail], [404, 'Device not found'], `${method} ${path}`);
  }
  assert.is((await call(`/api/push/subscriptions/${first.id}`, { token: user.token, method: 'DELETE' })).status, 204);
  assert.equal((await call('/api/push/subscriptions', { token: user.token })).body.map((d: any) => d.id), [made.body.id]);
});

push('a help request reaches the phone within a second: its title, the question cut at 100 characters, the one-time link the e-mail carries', async () => {
  const { parts } = await testServer();
  await swapRunner({
    provider: createOffline(), helpLink: (q, threadId) => createHelpLink(q, parts.secrets!, threadId),
    onNeedsHelp: helpNotifier({ db: parts.db, bus: parts.bus, mailDomain: 'test.local', publicUrl: ORIGIN, port: () => 1, sending: () => true }),
  });
  const user = await newUser('push-help');
  const agent = await newAgent(user.id, 'Ada');
  await subscribe(user.token, '/help/phone', ['run.needs_help']);
  const question = 'Which of the two accounts should I use for the quarterly filing, the one ending in 4411 or the shared one? Both can sign.';
  assert.ok(question.length > 100);
  const { thread, waiting } = await askForHelp(user.token, agent.id, question);
  const got = await arrived('/help/phone', 'run.needs_help');
  assert.is(got.error, null);
  assert.ok(got.at - Date.parse(waiting.asked_at) <= 1000, `the push left ${got.at - Date.parse(waiting.asked_at)} ms after the help request`);
  const { note } = got;
  assert.equal([note.title, note.body, note.tag], ['Ada needs you', question.slice(0, 100), `run.needs_help:${thread.id}`]);
  assert.match(note.url, /^\/help\/[A-Za-z0-9_-]{43}$/);
  assert.equal(Object.keys(note).sort(), ['body', 'tag', 'title', 'type', 'url']);
  assert.equal([got.headers.urgency, got.headers['content-encoding'], got.headers['content-type']], ['high', 'aes128gcm', 'application/octet-stream']);
  const ttl = Number(got.headers.ttl);
  assert.ok(ttl > 3500 && ttl <= 3600, `TTL ${ttl}`);
  assert.is(got.jwt!.aud, service.origin);
  assert.not.ok(got.body.includes(Buffer.from('Which of the two')), 'encrypted on the wire');

  // The e-mail carries the same link (and the plain take-control link as before).
  const mail = await waitFor(async () => (await parts.db.query<{ text: string }>('SELECT text FROM comm_messages WHERE thread_id = $1', [thread.id]))[0],
    5000, 'the help e-mail');
  assert.ok(mail.text.includes(`${ORIGIN}${note.url}\n`) || mail.text.endsWith(`${ORIGIN}${note.url}`), mail.text);
  assert.ok(mail.text.includes(`${ORIGIN}/agent/${agent.id}?control=1`));
  // The token is kept only hashed and sealed.
  const token = note.url.slice('/help/'.length);
  const [link] = await parts.db.query<{ token_hash: string; token: string }>('SELECT token_hash, token FROM help_links WHERE thread_id = $1', [thread.id]);
  assert.not.ok(JSON.stringify(link).includes(token));
  // The sender notes the send once the push service answered, which is after the push arrived there.
  const noted = async () => (await call('/api/push/subscriptions', { token: user.token })).body[0].last_sent_at !== null || null;
  await waitFor(noted, 5000, 'the device to note it');

  // The link: someone else gets the one 404 and does not use it up; the owner opens it once.
  const gone = { status: 404, detail: 'This link has expired or was already used' };
  const use = async (as: string, t = token, headers: Record<string, string> = {}) => {
    const res = await call(`/api/help-links/${t}/use`, { token: as, method: 'POST', headers });
    return { status: res.status, body: res.body };
  };
  const other = await newUser('push-help-other');
  assert.equal(await use(other.token), { status: 404, body: { detail: gone.detail } });
  assert.equal(await use(await adminToken(), token, { 'X-Impersonate-User-Id': String(user.id) }), { status: 404, body: { detail: gone.detail } });
  assert.equal(await use(user.token), { status: 200, body: { agent_id: agent.id, thread_id: thread.id } });
  assert.equal(await use(user.token), { status: 404, body: { detail: gone.detail } }, 'used twice');
  const [event] = await parts.db.query<{ actor_id: string; target_id: string }>(`SELECT actor_id, target_id FROM audit_events WHERE action = 'help_link.use'`);
  assert.equal([Number(event.actor_id), event.target_id], [user.id, String(thread.id)]);
  // After 30 minutes it is gone too; an unknown or malformed token reads the same.
  const later = (await createHelpLink(parts.db, parts.secrets!, thread.id))!.slice('/help/'.length);
  await parts.db.query(`UPDATE help_links SET expires_at = now() - interval '1 second' WHERE token_hash <> $1 AND thread_id = $2 AND used_at IS NULL`,
    [link.token_hash, thread.id]);
  assert.equal(await use(user.token, later), { status: 404, body: { detail: gone.detail } }, 'expired');
  assert.equal(await use(user.token, 'A'.repeat(43)), { status: 404, body: { detail: gone.detail } });
  assert.equal(await use(user.token, 'short'), { status: 404, body: { detail: gone.detail } });
  assert.is((await call(`/api/help-links/${later}/use`, { method: 'POST' })).status, 401);

  // A help link 29 minutes old still works.
  const fresh = (await createHelpLink(parts.db, parts.secrets!, thread.id))!.slice('/help/'.length);
  await parts.db.query(`UPDATE help_links SET created_at = now() - interval '29 minutes', expires_at = now() + interval '1 minute'
    WHERE used_at IS NULL AND expires_at > now() AND thread_id = $1`, [thread.id]);
  assert.is((await use(user.token, fresh)).status, 200);
});

push('each device gets only the events it chose, with the screen each opens', async () => {
  const { parts } = await testServer();
  const broken: ModelProvider = { name: 'broken', model: 'broken-1', offline: false, complete: async () => { throw new Error('the model is down'); } };
  await swapRunner({ provider: broken, helpLink: (q, threadId) => createHelpLink(q, parts.secrets!, threadId) });
  const user = await newUser('push-events');
  const agent = await newAgent(user.id, 'Grace');
  await subscribe(user.token, '/events/failures', ['run.failed']);
  await subscribe(user.token, '/events/money', ['mail.awaiting_approval', 'billing.limit_reached']);
  const quietOne = await subscribe(user.token, '/events/none', []);
  const someoneElse = await newUser('push-events-other');
  await subscribe(someoneElse.token, '/events/other', ['run.failed', 'mail.awaiting_approval', 'billing.limit_reached', 'run.needs_help']);

  // A real run that fails.
  const failing = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'do something' } })).body;
  await call(`/api/agents/${agent.id}/run-state`, { token: user.token, body: { state: 'run_all' } });
  const failed = await arrived('/events/failures', 'run.failed');
  assert.equal(failed.note, {
    type: 'run.failed', title: 'Grace\'s run failed', body: 'Open the thread to see what went wrong.',
    url: `/agent/${agent.id}?thread=${failing.id}`, tag: `run.failed:${failing.id}`,
  });
  assert.is(failed.headers.urgency, 'normal');
  // Mail drafted by the agent, waiting for approval; the spend limit (queued as the runner does).
  await draftOutbound(parts.db, parts.bus, {
    threadId: failing.id, agentId: agent.id, from: 'grace@test.local', to: 'client@example.test', subject: 'Secret subject', text: 'Secret text',
    mailDomain: 'test.local',
  });
  const mail = await arrived('/events/money', 'mail.awaiting_approval');
  assert.equal([mail.note.title, mail.note.url, mail.note.tag], ['Grace\'s e-mail awaits approval', `/agent/${agent.id}?thread=${failing.id}`,
    `mail.awaiting_approval:${failing.id}`]);
  assert.not.ok(JSON.stringify(mail.note).includes('Secret'), 'no message text');
  await emitThreadEvent(parts.db, parts.bus, 'billing.limit_reached', failing.id, null, { reason: 'over the limit' });
  const billing = await arrived('/events/money', 'billing.limit_reached');
  assert.equal([billing.note.title, billing.note.url], ['Spend limit reached', '/settings/billing']);
  // Events no device of theirs chose, and webhook-only events, reach none.
  await emitThreadEvent(parts.db, parts.bus, 'run.started', failing.id, null);
  await emitThreadEvent(parts.db, parts.bus, 'run.guard_paused', failing.id, null, { question: 'loop', reason: 'repeat' });
  const test = await call(`/api/push/subscriptions/${quietOne.id}/test`, { token: user.token, method: 'POST' });
  assert.is(test.status, 202);
  const hello = await arrived('/events/none', 'push.test');
  assert.equal([hello.note.title, hello.note.tag], ['Notifications are on', `push.test:${quietOne.id}`]);
  await waitFor(async () => (await parts.db.query('SELECT 1 FROM push_messages')).length === 0, 5000, 'nothing left queued');
  const types = (path: string) => pushesTo(path).map((p: Push) => p.note?.type);
  assert.equal(types('/events/failures'), ['run.failed']);
  assert.equal(types('/events/money'), ['mail.awaiting_approval', 'billing.limit_reached']);
  assert.equal(types('/events/none'), ['push.test']);
  assert.equal(types('/events/other'), [], 'another user\'s devices hear nothing of it');
  assert.ok(service.got.every((p) => p.error === null), JSON.stringify(service.got.map((p) => p.error)));
});

push('a device the push service says is gone (410, 404) is deleted; a 500 is retried; a 400 is given up', async () => {
  const { parts } = await testServer();
  const user = await newUser('push-gone');
  service.answer((path, n) => {
    if (path === '/gone/410') return 410;
    if (path === '/gone/404') return 404;
    if (path === '/gone/flaky') return n === 1 ? 500 : 201;
    if (path === '/gone/bad') return 400;
    return 201;
  });
  try {
    const devices = {
      gone: await subscribe(user.token, '/gone/410', ['run.failed']), missing: await subscribe(user.token, '/gone/404', ['run.failed']),
      flaky: await subscribe(user.token, '/gone/flaky', ['run.failed']), bad: await subscribe(user.token, '/gone/bad', ['run.failed']),
    };
    for (const d of Object.values(devices)) assert.is((await call(`/api/push/subscriptions/${d.id}/test`, { token: user.token, method: 'POST' })).status, 202);
    const listed = async () => (await call('/api/push/subscriptions', { token: user.token })).body.map((d: any) => d.id).sort();
    await waitFor(async () => (await listed()).length === 2, 10_000, 'the gone devices deleted');
    assert.equal(await listed(), [devices.flaky.id, devices.bad.id].sort());
    const events = await parts.db.query<{ actor_type: string; target_id: string; detail: any }>(
      `SELECT actor_type, target_id, detail FROM audit_events WHERE action = 'push.unsubscribe' AND target_id = ANY ($1) ORDER BY target_id::int`,
      [[String(devices.gone.id), String(devices.missing.id)]]);
    assert.equal(events.map((e) => [e.actor_type, e.detail.reason]),
      [['system', 'the push service answered 410'], ['system', 'the push service answered 404']]);
    await waitFor(() => pushesTo('/gone/flaky').length === 2, 10_000, 'the retry after a 500');
    const [first, second] = pushesTo('/gone/flaky');
    assert.ok(second.at - first.at >= 250, 'after a wait');
    assert.equal(second.note, first.note, 'the same notification');
    await waitFor(async () => (await parts.db.query('SELECT 1 FROM push_messages')).length === 0, 10_000, 'the queue empty');
    assert.is(pushesTo('/gone/bad').length, 1, 'a 400 is not tried again');
    assert.is(pushesTo('/gone/410').length, 1);
  } finally {
    service.answer(() => 201);
  }
});

push.run();
