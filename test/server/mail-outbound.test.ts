import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { openDb, type Db } from '../../server/db/db.ts';
import { queueDraft } from '../../server/mail/comm-messages.ts';
import { msUntilNextDue } from '../../server/mail/outbox.ts';
import { MailSender } from '../../server/mail/sender.ts';
import { outboxFileName } from '../../server/mail/transport.ts';
import { LocalBus, type Bus } from '../../server/realtime/bus.ts';
import { emailTool } from '../../server/runner/tools/email.ts';
import { call, testServer } from './helpers.ts';
import { commMessages, mailAgent, sendMail, threadsOf } from './mail-helpers.ts';
import { waitFor } from './runner-helpers.ts';

const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };

/** A thread that came in by mail, and a reply the agent drafted on it with the email tool. */
async function draftedReply(text = 'The figures are attached.') {
  const { parts } = await testServer();
  const setup = await mailAgent();
  await sendMail({
    from: 'alice@example.test', to: setup.address, subject: 'Numbers', text: 'Send me the numbers',
    messageId: '<ask-1@example.test>', references: '<older-0@example.test>',
  });
  const [thread] = await threadsOf(setup.agent.id, setup.user.token);
  const agent = { id: setup.agent.id, owner_id: setup.user.id, name: setup.agent.name, email_prefix: setup.prefix };
  const out = await emailTool.run({ to: 'alice@example.test', text }, {
    db: parts.db, bus: parts.bus, agent, threadId: thread.id, signal: new AbortController().signal,
    mailDomain: parts.config.mailDomain, computer: null,
  });
  assert.match(out.text, /drafted; it waits for approval/);
  const messages = await commMessages(thread.id, setup.admin);
  return { ...setup, thread, draft: messages.find((m) => m.role === 'outbound') };
}

const approval = suite('outbound mail: approval through the admin endpoints');

approval('the draft waits in requires_approval, marks the thread, and the admin endpoints follow the contract', async () => {
  const { agent, user, admin, thread, draft, address } = await draftedReply();
  assert.equal(Object.keys(draft).sort(), ['attempts', 'created_at', 'files', 'from_address', 'from_idn', 'held_reason', 'id', 'last_error',
    'outbound_state', 'role', 'sender_auth', 'sender_verified', 'sent_at', 'subject', 'text', 'to_address', 'to_idn']);
  assert.is(draft.outbound_state, 'requires_approval');
  assert.is(draft.from_address, address);
  assert.is(draft.subject, 'Re: Numbers');
  assert.is((await call(`/api/threads/${thread.id}`, { token: user.token })).body.approval_required, true);
  assert.is((await call(`/api/agents/${agent.id}`, { token: user.token })).body.number_threads_requiring_approval, 1);

  const path = `/api/admin/comm-messages/${draft.id}`;
  for (const body of [{ text: '' }, { text: '   ' }, { text: 42 }, {}]) {
    const res = await call(`${path}/update-text`, { token: admin, body });
    assert.is(res.status, 422, JSON.stringify(body));
  }
  const edited = await call(`${path}/update-text`, { token: admin, body: { text: 'Edited by the admin.' } });
  assert.is(edited.status, 200);
  assert.is(edited.body.text, 'Edited by the admin.');
  assert.is(edited.body.outbound_state, 'requires_approval');

  // Not for users, not even the owner, and not through impersonation by a non-admin.
  for (const [method, suffix, body] of [
    ['GET', '', undefined], ['POST', '/queue', {}], ['POST', '/update-text', { text: 'x' }], ['DELETE', '', undefined],
  ] as const) {
    const url = suffix || method === 'DELETE' ? `${path}${suffix}` : `/api/admin/comm-messages?thread_id=${thread.id}`;
    const res = await call(url, { method, token: user.token, body });
    assert.is(res.status, 403, `${method} ${url}`);
    assert.type(res.body.detail, 'string');
  }
  assert.is((await call('/api/admin/comm-messages', { token: admin })).status, 422);
  assert.is((await call('/api/admin/comm-messages?thread_id=99999999', { token: admin })).status, 404);
  assert.is((await call('/api/admin/comm-messages/99999999/queue', { token: admin, body: {} })).status, 404);

  // The inbound message cannot be edited, queued or deleted.
  const inbound = (await commMessages(thread.id, admin))[0];
  assert.is(inbound.role, 'inbound');
  const refused = await call(`/api/admin/comm-messages/${inbound.id}/queue`, { token: admin, body: {} });
  assert.is(refused.status, 409);
  assert.match(refused.body.detail, /inbound/);
});

approval('queued mail lands in the outbox as an .eml answering the inbound mail; then it is final', async () => {
  const { parts } = await testServer();
  const { agent, user, admin, thread, draft, address } = await draftedReply('Here they are:\nQ3 = 42');
  const queued = await call(`/api/admin/comm-messages/${draft.id}/queue`, { token: admin, body: {} });
  assert.is(queued.status, 200);
  assert.is(queued.body.outbound_state, 'queued');
  assert.is((await call(`/api/threads/${thread.id}`, { token: user.token })).body.approval_required, false, 'no draft left');
  assert.is((await call(`/api/agents/${agent.id}`, { token: user.token })).body.number_threads_requiring_approval, 0);

  const { message_id } = (await parts.db.one('SELECT message_id FROM comm_messages WHERE id = $1', [draft.id]))!;
  const file = join(parts.config.dataDir, 'outbox', outboxFileName(draft.id, message_id));
  await waitFor(() => existsSync(file), 10_000, 'the .eml in the outbox');
  const eml = readFileSync(file, 'utf8');
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(eml)?.[1];
  assert.is(header('From'), address);
  assert.is(header('To'), 'alice@example.test');
  assert.is(header('Subject'), 'Re: Numbers');
  assert.is(header('In-Reply-To'), '<ask-1@example.test>');
  assert.is(header('References'), '<older-0@example.test> <ask-1@example.test>');
  assert.match(header('Message-ID') ?? '', /^<[0-9a-f-]{36}@localhost>$/);
  assert.match(eml, /\r\n\r\nHere they are:\r\nQ3 = 42/);

  const sent = await waitFor(async () =>
    (await commMessages(thread.id, admin)).find((m) => m.id === draft.id && m.outbound_state === 'success'), 5000, 'success');
  assert.is(sent.attempts, 1);
  assert.is(sent.last_error, null);
  assert.ok(sent.sent_at);
  for (const [method, suffix, body] of [['POST', '/queue', {}], ['POST', '/update-text', { text: 'late' }], ['DELETE', '', undefined]] as const) {
    const res = await call(`/api/admin/comm-messages/${draft.id}${suffix}`, { method, token: admin, body });
    assert.is(res.status, 409, `${method} ${suffix}`);
    assert.match(res.body.detail, /^Only a message that requires approval can be/);
  }

  // A reply to what we sent comes back to the same thread.
  const messageId = header('Message-ID')!;
  await sendMail({ from: 'alice@example.test', to: address, subject: 'Re: Re: Numbers', text: 'Thanks!', inReplyTo: messageId });
  assert.is((await threadsOf(agent.id, user.token)).length, 1);
  assert.equal((await commMessages(thread.id, admin)).map((m) => m.role), ['inbound', 'outbound', 'inbound']);
});

approval('deleting the last draft clears approval_required; another waiting draft keeps it', async () => {
  const { parts } = await testServer();
  const { agent, user, admin, thread, draft, prefix } = await draftedReply();
  const ctx = {
    db: parts.db, bus: parts.bus, agent: { id: agent.id, owner_id: user.id, name: agent.name, email_prefix: prefix },
    threadId: thread.id, signal: new AbortController().signal, mailDomain: 'localhost', computer: null,
  };
  await emailTool.run({ to: 'bob@example.test', subject: 'Second', text: 'another' }, ctx);
  const second = (await commMessages(thread.id, admin)).find((m) => m.subject === 'Second');
  assert.is((await call(`/api/admin/comm-messages/${draft.id}`, { method: 'DELETE', token: admin })).status, 204);
  assert.is((await call(`/api/threads/${thread.id}`, { token: user.token })).body.approval_required, true);
  assert.is((await call(`/api/admin/comm-messages/${second.id}`, { method: 'DELETE', token: admin })).status, 204);
  assert.is((await call(`/api/threads/${thread.id}`, { token: user.token })).body.approval_required, false);
  assert.equal((await commMessages(thread.id, admin)).map((m) => m.role), ['inbound']);
  assert.is((await call(`/api/admin/comm-messages/${draft.id}`, { method: 'DELETE', token: admin })).status, 404);
});

// --- through a relay: a local smtp-server with AUTH speaking the real protocol

type Relay = {
  port: number; received: { from: string; to: string[]; raw: string; user: string }[];
  failNext: number; alwaysFail: boolean; delayMs: number; close(): Promise<void>;
};

async function startRelay(): Promise<Relay> {
  const relay: Relay = { port: 0, received: [], failNext: 0, alwaysFail: false, delayMs: 0, close: async () => {} };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'], allowInsecureAuth: true, logger: false,
    onAuth: (auth, _session, done) => (['relay-user', 'relay-user-2'].includes(auth.username!) && auth.password === 'relay-pass'
      ? done(null, { user: auth.username })
      : done(new Error('Invalid username or password'))),
    onData: (stream, session, done) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => setTimeout(() => {
        if (relay.alwaysFail) return done(Object.assign(new Error('Mailbox unavailable for good'), { responseCode: 550 }));
        if (relay.failNext > 0) {
          relay.failNext--;
          return done(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        }
        relay.received.push({
          from: (session.envelope.mailFrom as any).address, to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString(), user: session.user as string,
        });
        done();
      }, relay.delayMs));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.port = (server.server.address() as any).port;
  relay.close = () => new Promise((resolve) => server.close(() => resolve()));
  return relay;
}

const relayed = suite('outbound mail: through an SMTP relay');
let relay: Relay;
const senders: MailSender[] = [];

relayed.before(async () => {
  const { parts } = await testServer();
  await parts.mailSender!.stop(); // these tests bring their own senders
  relay = await startRelay();
});
relayed.after(async () => {
  for (const s of senders) await s.close();
  await relay.close();
  (await testServer()).parts.mailSender!.start();
});
relayed.before.each(() => {
  relay.failNext = 0;
  relay.alwaysFail = false;
  relay.delayMs = 0;
});

async function relaySender(db: Db, bus: Bus = new LocalBus(), url = `smtp://relay-user:relay-pass@127.0.0.1:${relay.port}`, maxAttempts = 4) {
  const { parts } = await testServer();
  // This relay offers no STARTTLS (mail-tls.test.ts checks that credentials then never leave): allowed here on purpose.
  const sender = new MailSender({
    db, bus, log: quiet, dataDir: parts.config.dataDir, mailDomain: 'localhost', relayUrl: url, relayInsecure: true,
    maxAttempts, retryBaseMs: 40, pollMs: 100,
  });
  senders.push(sender);
  sender.start();
  return sender;
}

const state = async (id: number) => (await testServer()).parts.db.one(
  'SELECT outbound_state, attempts, last_error, sent_at FROM comm_messages WHERE id = $1', [id]);

relayed('a relay that fails twice then recovers: retried with backoff, delivered once with auth', async () => {
  const { parts } = await testServer();
  await relaySender(parts.db, parts.bus);
  relay.failNext = 2;
  const { draft, admin } = await draftedReply('via the relay');
  const before = relay.received.length;
  assert.is((await call(`/api/admin/comm-messages/${draft.id}/queue`, { token: admin, body: {} })).status, 200);
  const done = await waitFor(async () => { const s = await state(draft.id); return s?.outbound_state === 'success' && s; }, 15_000, 'delivery');
  assert.is(done.attempts, 3);
  assert.is(done.last_error, null);
  const got = relay.received.slice(before);
  assert.is(got.length, 1);
  assert.is(got[0].user, 'relay-user');
  assert.equal(got[0].to, ['alice@example.test']);
  assert.match(got[0].raw, /^In-Reply-To: <ask-1@example\.test>$/m);
  assert.match(got[0].raw, /via the relay/);
});

relayed('a relay that always refuses: dead after maxAttempts, with the last error recorded', async () => {
  relay.alwaysFail = true;
  const { draft, admin, thread } = await draftedReply('never arrives');
  await call(`/api/admin/comm-messages/${draft.id}/queue`, { token: admin, body: {} });
  const dead = await waitFor(async () => { const s = await state(draft.id); return s?.outbound_state === 'dead' && s; }, 15_000, 'dead');
  assert.is(dead.attempts, 4);
  assert.match(dead.last_error, /550.*Mailbox unavailable for good/);
  assert.is(dead.sent_at, null);
  const listed = (await commMessages(thread.id, admin)).find((m) => m.id === draft.id);
  assert.is(listed.outbound_state, 'dead');
  assert.match(listed.last_error, /Mailbox unavailable/);
});

relayed('wrong relay credentials fail the attempt with the relay\'s answer', async () => {
  const { parts } = await testServer();
  for (const s of senders.splice(0)) await s.close();
  await relaySender(parts.db, parts.bus, `smtp://relay-user:wrong@127.0.0.1:${relay.port}`, 1);
  const { draft, admin } = await draftedReply('no entry');
  await call(`/api/admin/comm-messages/${draft.id}/queue`, { token: admin, body: {} });
  const dead = await waitFor(async () => { const s = await state(draft.id); return s?.outbound_state === 'dead' && s; }, 10_000, 'dead');
  assert.match(dead.last_error, /Invalid username or password/);
  for (const s of senders.splice(0)) await s.close();
});

relayed('two sender instances on one database send each message exactly once', async () => {
  const { parts } = await testServer();
  // With PostgreSQL each instance gets its own pool, as two servers would; PGlite is one process anyway.
  let second: Db = parts.db;
  if (parts.db.engine === 'postgres') {
    const [{ schema }] = await parts.db.query<{ schema: string }>('SELECT current_schema() AS schema');
    second = await openDb({ databaseUrl: process.env.TEST_DATABASE_URL!, schema });
  }
  relay.delayMs = 15;
  const a = await relaySender(parts.db, parts.bus, undefined, 4);
  const b = await relaySender(second, new LocalBus(), `smtp://relay-user-2:relay-pass@127.0.0.1:${relay.port}`, 4);
  const { draft, thread } = await draftedReply('first of many');
  const ids = [draft.id];
  const ctx = {
    db: parts.db, bus: parts.bus, agent: { id: thread.agent_id, owner_id: 0, name: '', email_prefix: null },
    threadId: thread.id, signal: new AbortController().signal, mailDomain: 'localhost', computer: null,
  };
  for (let i = 0; i < 29; i++) {
    await emailTool.run({ to: `r${i}@example.test`, text: `message ${i}` }, ctx);
  }
  const rows = await parts.db.query<{ id: number }>(
    `SELECT id FROM comm_messages WHERE thread_id = $1 AND outbound_state = 'requires_approval' AND id <> $2 ORDER BY id`, [thread.id, draft.id]);
  ids.push(...rows.map((r) => r.id));
  const before = relay.received.length;
  for (const id of ids) await queueDraft(parts.db, parts.bus, id);
  const sentCount = async () => (await parts.db.one<{ n: number }>(
    `SELECT count(*)::int AS n FROM comm_messages WHERE id = ANY($1::int[]) AND outbound_state = 'success'`, [ids]))!.n;
  await waitFor(async () => (await sentCount()) === ids.length, 30_000, 'all sent');
  const delivered = relay.received.slice(before);
  const got = delivered.map((m) => /^Message-ID: (.*)$/m.exec(m.raw)![1]);
  assert.is(got.length, ids.length, 'one delivery per message');
  assert.is(new Set(got).size, ids.length, 'no message twice');
  const attempts = await parts.db.query<{ attempts: number }>('SELECT attempts FROM comm_messages WHERE id = ANY($1::int[])', [ids]);
  assert.ok(attempts.every((r) => r.attempts === 1));
  const byInstance = new Set(delivered.map((m) => m.user));
  assert.is(byInstance.size, 2, 'both instances took part');
  for (const s of [a, b]) await s.stop();
  if (second !== parts.db) await second.close();
});

const idle = suite('outbound mail: an empty queue');

idle('with nothing queued the sender sleeps until woken or polled (no due time), and a future retry gives its wait', async () => {
  const { parts } = await testServer();
  const rolledBack = new Error('roll back');
  await parts.db.tx(async (q) => {
    await q.query(`UPDATE comm_messages SET outbound_state = 'dead' WHERE outbound_state = 'queued'`);
    assert.is(await msUntilNextDue(q), null, 'empty queue: nothing is due (was 0: the sender spun on the database)');
    const [{ id }] = await q.query<{ id: number }>('SELECT id FROM comm_messages ORDER BY id LIMIT 1');
    await q.query(`UPDATE comm_messages SET outbound_state = 'queued', next_attempt_at = now() + interval '60 seconds' WHERE id = $1`, [id]);
    const ms = await msUntilNextDue(q);
    assert.ok(ms !== null && ms > 50_000 && ms <= 60_000, `a retry in a minute: ${ms}`);
    await q.query(`UPDATE comm_messages SET next_attempt_at = now() - interval '5 seconds' WHERE id = $1`, [id]);
    assert.is(await msUntilNextDue(q), 0, 'overdue: now');
    throw rolledBack;
  }).catch((err) => assert.is(err, rolledBack));
});

approval.run();
relayed.run();
idle.run();
