// The audit events of changes made away from a plain API call: control of a live desktop, a desktop that
// refuses to start, a run stopped by the spend limit, a recording's summary, and the bootstrap admin.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureAdmin } from '../../server/auth/bootstrap.ts';
import { DesktopUnavailable } from '../../server/desktop/errors.ts';
import type { Runner } from '../../server/runner/runner.ts';
import { markFailed } from '../../server/mail/outbox.ts';
import { GUARD_DEFAULTS, GUARD_LIMITS, setGuardSettings } from '../../server/supervision/supervision.ts';
import { ADMIN, call, newAgent, newUser, testServer, uniqueEmail } from './helpers.ts';
import { scripted, swapRunner, toolUse, waitFor } from './runner-helpers.ts';

type Event = { id: number; action: string; actor_type: string; actor_id: number | null; target_type: string; target_id: string; detail: any };

async function lastId(): Promise<number> {
  const { parts } = await testServer();
  return (await parts.db.query<{ n: number }>('SELECT coalesce(max(id), 0)::int AS n FROM audit_events'))[0].n;
}
async function eventsAfter(id: number, action?: string): Promise<Event[]> {
  const { parts } = await testServer();
  const rows = await parts.db.query<Event>('SELECT * FROM audit_events WHERE id > $1 AND ($2::text IS NULL OR action = $2) ORDER BY id',
    [id, action ?? null]);
  return rows.map((r) => ({ ...r, actor_id: r.actor_id === null ? null : Number(r.actor_id) }));
}

const away = suite('audit: changes away from a plain API call');

away('taking and handing back control of a desktop', async () => {
  const { parts } = await testServer();
  const user = await newUser('audit-control');
  const agent = await newAgent(user.id);
  // Control lives in the gateway's memory: a stand-in with one viewer of this user.
  let controller: string | null = null;
  const real = parts.gateway;
  parts.gateway = Object.assign(Object.create(real), {
    describe: () => ({ viewers: 1, control: controller }),
    setControl: (_id: number, session: string, _user: number, take: boolean) => {
      controller = take ? session : controller === session ? null : controller;
      return { session_id: session, control: controller === session };
    },
  });
  try {
    const control = (take: boolean, session = 'viewer-1') =>
      call(`/api/agents/${agent.id}/control`, { token: user.token, body: { session_id: session, take } });
    const before = await lastId();
    await control(true);
    await control(true); // already in control: no change, no event
    await control(true, 'viewer-2'); // another tab takes it over
    await control(false, 'viewer-2');
    const events = await eventsAfter(before);
    assert.equal(events.map((e) => [e.action, e.actor_id, e.target_id, e.detail.from_session]), [
      ['desktop.take_control', user.id, String(agent.id), null],
      ['desktop.control_takeover', user.id, String(agent.id), 'viewer-1'],
      ['desktop.hand_back', user.id, String(agent.id), 'viewer-2'],
    ]);
  } finally {
    parts.gateway = real;
  }
});

away('a desktop that cannot be contained refuses to start, on the record', async () => {
  const { parts } = await testServer();
  const user = await newUser('audit-contain');
  const agent = await newAgent(user.id);
  const real = parts.desktops;
  parts.desktops = Object.assign(Object.create(real), {
    status: () => ({ ...real.status(), available: true }),
    acquire: async () => {
      throw new DesktopUnavailable('Desktops cannot be contained here: user namespaces are off');
    },
  });
  try {
    const before = await lastId();
    const res = await call('/api/agents/enter', { token: user.token, body: { agent_id: agent.id } });
    assert.is(res.status, 503);
    const events = await eventsAfter(before);
    assert.equal(events.map((e) => [e.action, e.target_id, e.detail.reason]), [
      ['desktop.start_refused', String(agent.id), 'Desktops cannot be contained here: user namespaces are off'],
    ]);
  } finally {
    parts.desktops = real;
  }
});

let runner: Runner | null = null;
away.after(async () => {
  await runner?.stop();
});

away('a run stopped by the spend limit', async () => {
  runner = await swapRunner({ provider: scripted([[toolUse('n', 'notes', { action: 'append', text: 'step' })]], 'priced', 2) });
  const user = await newUser('audit-spend');
  const agent = await newAgent(user.id);
  // The runaway guard's cost cap ($2 since the last human message) would pause the run first.
  await setGuardSettings((await testServer()).parts.db, agent.id, { ...GUARD_DEFAULTS, cost_cap_cents: GUARD_LIMITS.cost_cap_cents });
  const before = await lastId();
  const thread = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'keep going' } })).body;
  await call(`/api/agents/${agent.id}/run-state`, { token: user.token, body: { state: 'run_all' } });
  const [stop] = await waitFor(async () => {
    const found = await eventsAfter(before, 'billing.limit_stop');
    return found.length ? found : null;
  }, 10_000, 'the spend stop');
  assert.equal([stop.actor_type, stop.target_type, stop.target_id, stop.detail.agent_id], ['system', 'thread', String(thread.id), agent.id]);
  assert.match(stop.detail.reason, 'Test credits used up');
  await new Promise((r) => setTimeout(r, 300));
  assert.is((await eventsAfter(before, 'billing.limit_stop')).length, 1, 'one run, one stop');
});

away('a recording summarised into its thread', async () => {
  const user = await newUser('audit-summary');
  const agent = await newAgent(user.id);
  const started = (await call('/api/screenshare/start-recording', { token: user.token, body: { agent_id: agent.id } })).body;
  await call('/api/screenshare/stop-recording', { token: user.token, body: { agent_id: agent.id } });
  const before = await lastId();
  const audio = await call('/api/screenshare/audio-final', {
    method: 'POST', token: user.token, raw: 'OggS fake audio', headers: { 'X-Session-Id': started.session_id, 'Content-Type': 'audio/ogg' },
  });
  assert.is(audio.status, 202);
  const [summary] = await waitFor(async () => {
    const found = await eventsAfter(before, 'recording.summarize');
    return found.length ? found : null;
  }, 10_000, 'the summary');
  assert.equal([summary.actor_type, summary.target_type, summary.detail.agent_id], ['system', 'recording', agent.id]);
  assert.type(summary.detail.thread_id, 'number');
});

away('the bootstrap admin: a role change and a password change, each once', async () => {
  const { parts } = await testServer();
  const user = await newUser('audit-bootstrap');
  const before = await lastId();
  await ensureAdmin(parts.db, user.email, 'a brand new password 1', () => {});
  await ensureAdmin(parts.db, user.email, 'a brand new password 1', () => {}); // the same again: nothing changed
  const events = await eventsAfter(before);
  assert.equal(events.map((e) => [e.action, e.actor_type, e.target_id]), [
    ['user.role_change', 'system', String(user.id)], ['auth.password_change', 'system', String(user.id)],
  ]);
  assert.equal(events[0].detail, { email: user.email, from: 'user', to: 'admin', by: 'ADMIN_EMAIL' });
  assert.not.ok(JSON.stringify(events).includes('brand new'), 'no password in the record');
});

away('a sign-up, an admin deleting a thread, and mail given up after its last attempt', async () => {
  const { parts } = await testServer();
  let before = await lastId();
  const email = uniqueEmail('audit-signup');
  const signedUp = await call('/api/auth/sign-up', { body: { email, password: 'correct horse battery' } });
  assert.is(signedUp.status, 200);
  const user = { token: signedUp.body.token, id: (await call('/api/users/me', { token: signedUp.body.token })).body.id };
  const signUp = (await eventsAfter(before)).filter((e) => e.action.startsWith('auth.'));
  assert.equal(signUp.map((e) => [e.action, e.actor_id]), [['auth.sign_up', user.id]]);

  const agent = await newAgent(user.id);
  const thread = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'Hi' } })).body;
  const admin = (await call('/api/auth/sign-in', { body: ADMIN })).body.token;
  before = await lastId();
  assert.is((await call(`/api/admin/threads/${thread.id}`, { method: 'DELETE', token: admin })).status, 204);
  assert.equal((await eventsAfter(before)).map((e) => [e.action, e.target_id]), [['thread.delete', String(thread.id)]]);

  const mail = { id: 424242, thread_id: 1, agent_id: agent.id, from_address: 'a@x', to_address: 'bob@example.test', subject: 'Hi', text: 'body',
    message_id: null, in_reply_to: null, reference_ids: '', attempts: 6 };
  before = await lastId();
  await markFailed(parts.db, mail, 'relay refused', 30_000); // a retry: no event
  await markFailed(parts.db, mail, 'relay refused', null);
  assert.equal((await eventsAfter(before)).map((e) => [e.action, e.actor_type, e.target_id, e.detail.to]), [
    ['mail.dead', 'system', '424242', 'bob@example.test'],
  ]);
});

away.run();
