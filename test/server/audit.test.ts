// The audit trail: each change leaves exactly one event naming actor, impersonator and target, a refused or
// failed change leaves none, and only admins (not an admin acting as a user) read it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countByAction } from '../../server/audit/read.ts';
import { emailTool } from '../../server/runner/tools/email.ts';
import { record } from '../../server/audit/audit.ts';
import { createAgent } from '../../server/agents/agents.ts';
import { setEmailSettings } from '../../server/mail/email-settings.ts';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';

type Event = {
  id: number; action: string; actor_type: string; actor_id: number | null; actor_label: string | null; impersonator_id: number | null;
  target_type: string | null; target_id: string | null; request_id: string | null; ip: string | null; user_agent: string | null; detail: any;
};

async function lastId(): Promise<number> {
  const { parts } = await testServer();
  const [row] = await parts.db.query<{ n: number }>('SELECT coalesce(max(id), 0)::int AS n FROM audit_events');
  return row.n;
}

async function eventsAfter(id: number): Promise<Event[]> {
  const { parts } = await testServer();
  const rows = await parts.db.query<Event>('SELECT * FROM audit_events WHERE id > $1 ORDER BY id', [id]);
  return rows.map((r) => ({ ...r, id: Number(r.id), actor_id: r.actor_id === null ? null : Number(r.actor_id),
    impersonator_id: r.impersonator_id === null ? null : Number(r.impersonator_id) }));
}

/** Runs `act` and returns the events it left, checking they are exactly `actions` in order. */
async function leaves(actions: string[], act: () => Promise<unknown>): Promise<Event[]> {
  const before = await lastId();
  await act();
  const events = await eventsAfter(before);
  assert.equal(events.map((e) => e.action), actions);
  return events;
}

const as = (userId: number) => ({ 'X-Impersonate-User-Id': String(userId) });

const actions = suite('audit: every change leaves one event');

actions('agents: created by an admin for a user, edited, run state, e-mail settings, deleted', async () => {
  const user = await newUser('audit-agents');
  const admin = await adminToken();
  const adminId = (await call('/api/users/me', { token: admin })).body.id;
  const [created] = await leaves(['agent.create'], () =>
    call('/api/agents/', { token: admin, headers: { ...as(user.id), 'User-Agent': 'audit-test/1.0' }, body: { name: 'Audited' } }));
  assert.is(created.actor_type, 'user');
  assert.is(created.actor_id, user.id, 'the impersonated user acted');
  assert.is(created.actor_label, user.email);
  assert.is(created.impersonator_id, adminId, 'the admin behind it is named');
  assert.is(created.target_type, 'agent');
  assert.is(created.user_agent, 'audit-test/1.0');
  assert.ok(created.request_id, 'request id');
  assert.match(created.ip ?? '', /127\.0\.0\.1|::1/);
  const agentId = Number(created.target_id);
  assert.is(created.detail.name, 'Audited');

  const [edited] = await leaves(['agent.update'], () =>
    call(`/api/agents/${agentId}/notes`, { method: 'PUT', token: user.token, body: { notes: 'secret plan' } }));
  assert.is(edited.actor_id, user.id);
  assert.is(edited.impersonator_id, null);
  assert.equal(edited.detail, { field: 'notes', from_chars: 0, to_chars: 11 }, 'lengths, never the text');

  const [state] = await leaves(['agent.run_state'], () => call(`/api/agents/${agentId}/run-state`, { token: user.token, body: { state: 'run' } }));
  assert.equal(state.detail, { from: 'stop', to: 'run' });
  await leaves([], () => call(`/api/agents/${agentId}/run-state`, { token: user.token, body: { state: 'run' } })); // no change, no event
  await leaves(['agent.run_state'], () => call('/api/agents/stop', { token: user.token, body: { agent_id: agentId } }));

  const prefix = `audit-${Date.now().toString(36)}`;
  const mail = await leaves(['agent.email_prefix', 'agent.accept_from'], () => call(`/api/agents/${agentId}/email-settings`, {
    method: 'PUT', token: admin, body: { email_prefix: prefix, email_accept_from_addresses: ['@example.test'] },
  }));
  assert.equal(mail[0].detail, { from: null, to: prefix });
  assert.equal(mail[1].detail, { from: null, to: ['@example.test'] });
  assert.is(mail[0].actor_id, adminId);

  const [deleted] = await leaves(['agent.delete'], () => call(`/api/agents/${agentId}`, { method: 'DELETE', token: admin }));
  assert.equal(deleted.detail, { name: 'Audited', owner_id: user.id });
});

actions('schedules, uploads, threads, spend limit, name, recordings', async () => {
  const user = await newUser('audit-misc');
  const agent = await newAgent(user.id);
  const admin = await adminToken();
  const rule = { frequency: 'interval', interval: 3600, message: 'Check the inbox' };
  const first = await lastId();
  const [made] = await leaves(['schedule.create'], () => call(`/api/scheduler/${agent.id}`, { token: admin, headers: as(user.id), body: rule }));
  assert.is(made.actor_id, user.id);
  assert.ok(made.impersonator_id);
  assert.is(made.detail.to.message_chars, 15);
  assert.not.ok('message' in made.detail.to);
  const id = made.target_id;
  const [changed] = await leaves(['schedule.update'], () => call(`/api/scheduler/${id}`, { method: 'PUT', token: admin, body: { ...rule, interval: 7200 } }));
  assert.equal([changed.detail.from.interval, changed.detail.to.interval], [3600, 7200]);
  await leaves(['schedule.delete'], () => call(`/api/scheduler/${id}`, { method: 'DELETE', token: admin }));

  const form = new FormData();
  form.append('file', new Blob(['audit upload']), 'notes.txt');
  const [upload] = await leaves(['file.upload'], () => call(`/api/agents/${agent.id}/upload_file`, { token: user.token, raw: form }));
  assert.is(upload.detail.name, 'notes.txt');
  assert.is(upload.detail.size, 12);

  const thread = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'Hello' } })).body;
  await leaves(['thread.delete'], () => call(`/api/threads/${thread.id}`, { method: 'DELETE', token: user.token }));

  const [limit] = await leaves(['billing.spend_limit'], () => call('/api/users/me/limit', { method: 'PATCH', token: user.token, body: { limit_cents: 2500 } }));
  assert.equal(limit.detail, { from_cents: 0, to_cents: 2500 });
  assert.is(limit.target_id, String(user.id));
  await leaves(['user.update'], () => call('/api/users/me', { method: 'PUT', token: user.token, body: { name: 'Ann Audit' } }));

  const [start] = await leaves(['recording.start'], () => call('/api/screenshare/start-recording', { token: user.token, body: { agent_id: agent.id } }));
  assert.is(start.target_type, 'recording');
  const [stop] = await leaves(['recording.stop'], () => call('/api/screenshare/stop-recording', { token: user.token, body: { agent_id: agent.id } }));
  assert.is(stop.target_id, start.target_id);
  assert.is(stop.detail.auto, false);
  // Each was written by a service below the handler, and still names the request and a person, not the system.
  for (const e of await eventsAfter(first)) {
    assert.ok(e.actor_type === 'user' && e.request_id && e.ip, `${e.action}: ${e.actor_type}, request ${e.request_id}`);
  }
});

actions('outbound mail: drafted by the agent, edited, approved, deleted, sent', async () => {
  const { parts } = await testServer();
  const user = await newUser('audit-mail');
  const agent = await newAgent(user.id);
  const admin = await adminToken();
  const thread = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'Write to Bob' } })).body;
  await call(`/api/threads/${thread.id}/remove-from-schedule`, { token: user.token, body: {} });
  const draft = () => emailTool.run({ to: 'bob@example.test', subject: 'Hi', text: 'Private body' }, {
    db: parts.db, bus: parts.bus, agent: { id: agent.id, owner_id: user.id, name: agent.name, email_prefix: null },
    threadId: thread.id, signal: new AbortController().signal, mailDomain: parts.config.mailDomain, computer: null,
  });
  const [drafted] = await leaves(['mail.draft'], draft);
  assert.is(drafted.actor_type, 'agent');
  assert.is(drafted.actor_id, agent.id);
  assert.is(drafted.target_type, 'message');
  assert.is(drafted.detail.to, 'bob@example.test');
  assert.not.ok(JSON.stringify(drafted.detail).includes('Private body'), 'no message body');
  const id = drafted.target_id;
  const [edit] = await leaves(['mail.edit'], () => call(`/api/admin/comm-messages/${id}/update-text`, { token: admin, body: { text: 'Shorter' } }));
  assert.is(edit.detail.to_chars, 7);
  // Sending may follow at once (the sender is woken): mail.send comes after the approval when it does.
  const approved = await leaves(['mail.approve'], () => call(`/api/admin/comm-messages/${id}/queue`, { token: admin, body: {} }));
  for (let i = 0; i < 100 && !(await eventsAfter(approved[0].id)).length; i++) await new Promise((r) => setTimeout(r, 50));
  const sent = await eventsAfter(approved[0].id);
  assert.equal(sent.map((e) => [e.action, e.actor_type, e.target_id]), [['mail.send', 'system', id]]);
  // A refused change leaves nothing: a queued message cannot be queued again or deleted.
  await leaves([], async () => assert.is((await call(`/api/admin/comm-messages/${id}/queue`, { token: admin, body: {} })).status, 409));
  await leaves([], async () => assert.is((await call(`/api/admin/comm-messages/${id}`, { method: 'DELETE', token: admin })).status, 409));
  await leaves(['mail.draft'], draft);
  const second = (await eventsAfter(Number(sent[0].id))).find((e) => e.action === 'mail.draft')!.target_id;
  await leaves(['mail.delete'], () => call(`/api/admin/comm-messages/${second}`, { method: 'DELETE', token: admin }));
});

actions('sign-in, failed sign-in, lockout and sign-out; impersonated changes without an event of their own', async () => {
  const user = await newUser('audit-auth');
  const [signIn] = await leaves(['auth.sign_in'], () => call('/api/auth/sign-in', { body: { email: user.email, password: 'correct horse battery' } }));
  assert.is(signIn.actor_id, user.id);
  const [failed] = await leaves(['auth.sign_in_failed'], () => call('/api/auth/sign-in', { body: { email: user.email, password: 'wrong password 1' } }));
  assert.is(failed.target_id, String(user.id));
  assert.is(failed.actor_type, 'system');
  assert.not.ok(JSON.stringify(failed).includes('wrong password'), 'the password tried is not kept');
  for (let i = 2; i < 10; i++) await call('/api/auth/sign-in', { body: { email: user.email, password: `wrong password ${i}` } });
  await leaves(['auth.sign_in_failed', 'auth.lockout'], () => call('/api/auth/sign-in', { body: { email: user.email, password: 'wrong password 10' } }));
  await leaves([], async () => assert.is((await call('/api/auth/sign-in', { body: { email: user.email, password: 'x' } })).status, 429));

  const other = await newUser('audit-auth-out');
  const [out] = await leaves(['auth.sign_out'], () => call('/api/auth/sign-out', { body: {}, headers: { Cookie: other.cookie.split(';')[0] } }));
  assert.is(out.actor_id, other.id);

  const admin = await adminToken();
  const agent = await newAgent(other.id);
  // The signed-out session's token is refused now: a new sign-in acts for the user.
  const again = (await call('/api/auth/sign-in', { body: { email: other.email, password: 'correct horse battery' } })).body.token;
  const thread = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: again, body: { user_text: 'Hi' } })).body;
  const [acted] = await leaves(['impersonation.request'], () =>
    call(`/api/threads/${thread.id}/remove-from-schedule`, { token: admin, headers: as(other.id), body: {} }));
  assert.is(acted.actor_id, other.id);
  assert.ok(acted.impersonator_id);
  assert.equal(acted.detail, { method: 'POST', route: '/threads/:id/remove-from-schedule' });
  // Watching the thread as the user (a hub token) is viewing, not a change: no event.
  await leaves([], async () => {
    const negotiated = await call('/api/realtime/negotiate', { token: admin, headers: as(other.id), body: { thread_id: thread.id } });
    assert.is(negotiated.status, 200);
  });
});

const refused = suite('audit: refused and failed changes leave none');

refused('403, 409 and 422 leave no event', async () => {
  const user = await newUser('audit-refused');
  const agent = await newAgent(user.id);
  const admin = await adminToken();
  await leaves([], async () => assert.is((await call('/api/agents/', { token: user.token, body: { name: 'Nope' } })).status, 403));
  await leaves([], async () => assert.is((await call('/api/users/me/limit', { method: 'PATCH', token: user.token, body: { limit_cents: -1 } })).status, 422));
  const taken = await newAgent(user.id);
  const prefix = `taken-${Date.now().toString(36)}`;
  await call(`/api/agents/${taken.id}/email-settings`, { method: 'PUT', token: admin, body: { email_prefix: prefix } });
  await leaves([], async () => {
    const res = await call(`/api/agents/${agent.id}/email-settings`, { method: 'PUT', token: admin, body: { email_prefix: prefix } });
    assert.is(res.status, 409);
  });
  await leaves([], async () => assert.is((await call(`/api/scheduler/${agent.id}`, { token: admin, body: { frequency: 'daily' } })).status, 422));
});

refused('a transaction that fails after its event was written keeps neither the change nor the event', async () => {
  const { parts } = await testServer();
  const user = await newUser('audit-rollback');
  const agent = await newAgent(user.id);
  await leaves([], async () => {
    const failed = parts.db.tx(async (q) => {
      await setEmailSettings(q, parts.bus, agent.id, { email_prefix: `rolled-${Date.now().toString(36)}`, email_accept_from_addresses: null });
      await record(q, { action: 'agent.email_prefix', target: { type: 'agent', id: agent.id } });
      throw new Error('the disk is full');
    });
    await failed.then(() => assert.unreachable(), (err) => assert.is(err.message, 'the disk is full'));
  });
  const [row] = await parts.db.query('SELECT email_prefix FROM agents WHERE id = $1', [agent.id]);
  assert.is(row.email_prefix, null);
  // A change the database itself refuses (no such owner) leaves no event either.
  await leaves([], () => createAgent(parts.db, 2147483000, 'Orphan').then(() => assert.unreachable(), (err) => assert.is(err.code, '23503')));
});

const access = suite('audit: admins only');

access('a user, and an admin acting as a user, get 403 on every audit route; an admin gets them', async () => {
  const user = await newUser('audit-access');
  const admin = await adminToken();
  for (const path of ['/api/admin/audit', '/api/admin/audit/export?format=csv', '/api/admin/audit/verify']) {
    const own = await call(path, { token: user.token });
    assert.is(own.status, 403, path);
    assert.is(own.body.detail, 'Forbidden: Admins only');
    assert.is((await call(path, { token: user.token, headers: as(user.id) })).status, 403, `${path} user impersonating`);
    assert.is((await call(path, { token: admin, headers: as(user.id) })).status, 403, `${path} admin acting as a user`);
    assert.is((await call(path)).status, 401, `${path} anonymous`);
    assert.is((await call(path, { token: admin })).status, 200, `${path} admin`);
  }
});

access('pages: filters, newest first, 50 a page with a cursor', async () => {
  const user = await newUser('audit-pages');
  const admin = await adminToken();
  const started = new Date(Date.now() - 1000).toISOString();
  const agent = await newAgent(user.id);
  for (let i = 0; i < 55; i++) await call(`/api/agents/${agent.id}/notes`, { method: 'PUT', token: user.token, body: { notes: 'x'.repeat(i) } });
  const first = await call(`/api/admin/audit?target_type=agent&target_id=${agent.id}&action=agent.`, { token: admin });
  assert.is(first.status, 200);
  assert.is(first.body.events.length, 50);
  const ids = first.body.events.map((e: Event) => e.id);
  assert.equal(ids, [...ids].sort((a, b) => b - a), 'newest first');
  assert.ok(first.body.next_cursor);
  const rest = await call(`/api/admin/audit?target_type=agent&target_id=${agent.id}&action=agent.&cursor=${first.body.next_cursor}`, { token: admin });
  assert.is(rest.body.events.length, 6, '55 updates and the creation');
  assert.is(rest.body.next_cursor, null);
  assert.is(rest.body.events.at(-1).action, 'agent.create');
  const mine = await call(`/api/admin/audit?actor=${encodeURIComponent(user.email)}&action=agent.update`, { token: admin });
  assert.is(mine.body.events.length, 50);
  assert.ok(mine.body.events.every((e: Event) => e.actor_id === user.id));
  const none = await call(`/api/admin/audit?actor=${user.id}&since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { token: admin });
  assert.equal(none.body, { events: [], next_cursor: null });
  const range = `since=${encodeURIComponent(started)}&until=${encodeURIComponent(new Date().toISOString())}`;
  const timed = await call(`/api/admin/audit?target_id=${agent.id}&target_type=agent&${range}`, { token: admin });
  assert.equal(timed.body.events.map((e: Event) => e.id), ids, 'a time range that holds them all');
  const before = await call(`/api/admin/audit?target_id=${agent.id}&target_type=agent&until=${encodeURIComponent(started)}`, { token: admin });
  assert.equal(before.body.events, []);
  assert.is((await call('/api/admin/audit?since=yesterday-ish', { token: admin })).status, 422);
  assert.is((await call('/api/admin/audit?cursor=abc', { token: admin })).status, 422);
});

access('/api/metrics counts the events kept by action', async () => {
  const { parts } = await testServer();
  const admin = await adminToken();
  const [row] = await parts.db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_events WHERE action = 'auth.sign_in'");
  const res = await call('/api/metrics', { token: admin });
  assert.is(res.status, 200);
  assert.match(res.body, '# TYPE aw_audit_events gauge\n');
  assert.match(res.body, /^aw_audit_events\{action="agent\.create"\} [1-9]\d*$/m);
  const signIns = Number(/^aw_audit_events\{action="auth\.sign_in"\} (\d+)$/m.exec(res.body)?.[1]);
  assert.ok(signIns >= row.n, `${signIns} sign-ins counted, ${row.n} before the scrape`);
});

access('the metrics\' audit counts are kept, not counted: they match the events, and reading them touches no event', async () => {
  const { parts } = await testServer();
  const { db } = parts;
  await adminToken(); // a sign-in or two among the events
  const counted = await db.query<{ action: string; n: number }>('SELECT action, count(*)::int AS n FROM audit_events GROUP BY action ORDER BY action');
  assert.equal(await countByAction(db), counted);
  // Scans of audit_events by the reading, from the database's own statistics (of this transaction, before and after): none.
  const scans = await db.tx(async (q) => {
    const sofar = async () => (await q.query<{ n: number }>(
      `SELECT (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::int AS n FROM pg_stat_xact_user_tables
       WHERE relname = 'audit_events' AND schemaname = current_schema()`))[0]?.n ?? 0;
    const before = await sofar();
    await countByAction(q);
    return (await sofar()) - before;
  });
  assert.is(scans, 0, 'scans of audit_events while reading the counts');
});

actions.run();
refused.run();
access.run();
