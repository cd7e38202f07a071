import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import nodemailer from 'nodemailer';
import { SmtpIntake } from '../../server/mail/smtp-intake.ts';
import { call, storedBytes, storedKeys, testServer } from './helpers.ts';
import { commMessages, mailAgent, refusal, sendMail, stepsOf, threadsOf } from './mail-helpers.ts';
import { TOPICS } from '../../server/realtime/topics.ts';

const intake = suite('SMTP intake');

intake('a mail from an accepted sender becomes an inbound message and a queued thread before the 250', async () => {
  const { agent, user, admin, address } = await mailAgent(['@example.test']);
  const info = await sendMail({ from: 'Alice <alice@example.test>', to: address, subject: 'Quarterly numbers', text: 'Please sum up the Q3 figures.\nThanks' });
  assert.match(info.response, /^250 /);
  assert.equal(info.accepted, [address]);
  // No waiting: the 250 comes only after the database has it.
  const threads = await threadsOf(agent.id, user.token);
  assert.is(threads.length, 1);
  assert.is(threads[0].name, 'Quarterly numbers');
  assert.is(threads[0].schedule_sequence, 1);
  const steps = await stepsOf(threads[0].id, user.token);
  assert.is(steps.length, 1);
  assert.is(steps[0].user_text, 'E-mail from alice@example.test\nSubject: Quarterly numbers\n\nPlease sum up the Q3 figures.\nThanks');
  assert.equal(steps[0].user_files, []);
  const [message] = await commMessages(threads[0].id, admin);
  assert.equal(
    { ...message, id: 0, created_at: 0 },
    { id: 0, role: 'inbound', outbound_state: null, text: 'Please sum up the Q3 figures.\nThanks', files: [], created_at: 0, from_address: 'alice@example.test',
      to_address: address, subject: 'Quarterly numbers', attempts: 0, last_error: null, sent_at: null,
      sender_verified: true, sender_auth: 'no DMARC policy for example.test; SPF pass for example.test', held_reason: null, to_idn: null, from_idn: null });
  const feed = await call(`/api/messages/agent/${agent.id}/latest?limit=5`, { token: user.token });
  assert.match(feed.body[0].user_data.text, /Please sum up/);
});

intake('views hear of a mail only after its thread, step and message are committed', async () => {
  const { parts } = await testServer();
  const { agent, address } = await mailAgent(['@example.test']);
  // What a listener reads on another connection the moment it hears: a step and a thread both there.
  const seen: Promise<unknown>[] = [];
  const read = (threadId: number) => parts.db.query<{ steps: number; threads: number }>(
    'SELECT (SELECT count(*)::int FROM thread_steps WHERE thread_id = $1) AS steps, ' +
      '(SELECT count(*)::int FROM threads WHERE id = $1) AS threads', [threadId]).then(([r]) => r);
  const offs = [
    parts.bus.subscribe(TOPICS.agentMessages(agent.id), (m: any) => seen.push(read(m.message.thread_id))),
    parts.bus.subscribe(TOPICS.agentChanged(agent.id), () => seen.push(parts.db
      .query<{ n: number }>('SELECT count(*)::int AS n FROM threads WHERE agent_id = $1', [agent.id])
      .then(([r]) => ({ threads: r.n })))),
  ];
  await sendMail({ from: 'alice@example.test', to: address, subject: 'Heard after commit', text: 'x' });
  for (const off of offs) off();
  const heard = await Promise.all(seen);
  assert.ok(heard.length >= 2, 'the chat and the agent views heard');
  assert.ok(heard.every((h: any) => h.threads === 1 && (h.steps === undefined || h.steps === 1)), JSON.stringify(heard));
});

intake('the prefix is matched in any case and the sender by every pattern kind', async () => {
  const { agent, user, prefix } = await mailAgent(['boss@example.org', '*.corp.example', 'billing-*@example.net']);
  for (const from of ['BOSS@example.org', 'x@eu.corp.example', 'billing-7@example.net']) {
    await sendMail({ from, to: `${prefix.toUpperCase()}@LOCALHOST`, subject: from, text: 'hi' });
  }
  assert.is((await threadsOf(agent.id, user.token)).length, 3);
});

intake('a refused sender is turned away at RCPT with a 5xx, and nothing is stored', async () => {
  const { agent, user, address } = await mailAgent(['billing-*@example.net']);
  for (const from of ['billing@example.net', 'billing-1@example.net.evil.org', 'someone@example.test']) {
    const err = await refusal({ from, to: address, subject: 'x', text: 'x' });
    assert.is(err.responseCode, 550, from);
    assert.is(err.command, 'RCPT TO');
    assert.match(err.response, new RegExp(`^550 5\\.7\\.1 <${address}>: sender <${from.replace(/\./g, '\\.')}> is not accepted`));
  }
  // Without patterns nobody is accepted.
  const closed = await mailAgent(null);
  assert.is((await refusal({ from: 'alice@example.test', to: closed.address, text: 'x' })).responseCode, 550);
  assert.is((await threadsOf(agent.id, user.token)).length, 0);
  assert.is((await threadsOf(closed.agent.id, closed.user.token)).length, 0);
});

intake('an unknown prefix, another domain or a bad address is refused at RCPT', async () => {
  const unknown = await refusal({ from: 'alice@example.test', to: 'nobody-here-at-all@localhost', text: 'x' });
  assert.is(unknown.responseCode, 550);
  assert.is(unknown.command, 'RCPT TO');
  assert.match(unknown.response, /^550 5\.1\.1 <nobody-here-at-all@localhost>: no such mailbox here/);
  const relay = await refusal({ from: 'alice@example.test', to: 'someone@example.com', text: 'x' });
  assert.is(relay.responseCode, 550);
  assert.match(relay.response, /relay access denied/);
  // One good and one unknown recipient: the good one still gets it.
  const { agent, user, address } = await mailAgent();
  const info = await sendMail({ from: 'alice@example.test', to: [address, 'nobody-here-at-all@localhost'], subject: 'partly', text: 'x' });
  assert.equal(info.accepted, [address]);
  assert.equal(info.rejected, ['nobody-here-at-all@localhost']);
  assert.is((await threadsOf(agent.id, user.token)).length, 1);
});

intake('a message over MAIL_MAX_BYTES is answered 552 and not stored', async () => {
  const { agent, user, address } = await mailAgent();
  const { parts } = await testServer();
  const big = 'x'.repeat(76) + '\r\n';
  const err = await refusal({
    from: 'alice@example.test', to: address, subject: 'big', text: big.repeat(Math.ceil(parts.config.mailMaxBytes / big.length) + 10),
  });
  assert.is(err.responseCode, 552);
  assert.match(err.response, /^552 .*(size|big)/i);
  assert.is((await threadsOf(agent.id, user.token)).length, 0);
  // The intake is fine afterwards.
  await sendMail({ from: 'alice@example.test', to: address, subject: 'small', text: 'x' });
  assert.is((await threadsOf(agent.id, user.token)).length, 1);
});

intake('attachments become the step\'s user_files, stored like uploads and readable there', async () => {
  const { agent, user, admin, address } = await mailAgent();
  const { parts } = await testServer();
  const binary = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
  await sendMail({
    from: 'alice@example.test', to: address, subject: 'Files', text: 'See attached',
    attachments: [
      { filename: 'report.txt', content: 'line one\nline two\n' },
      { filename: '../../etc/passwd.bin', content: binary, contentType: 'application/octet-stream' },
    ],
  });
  const [thread] = await threadsOf(agent.id, user.token);
  const [step] = await stepsOf(thread.id, user.token);
  assert.is(step.user_files.length, 2);
  assert.match(step.user_files[0], new RegExp(`^agent-${agent.id}/[0-9a-f-]{36}/report\\.txt$`));
  assert.match(step.user_files[1], new RegExp(`^agent-${agent.id}/[0-9a-f-]{36}/passwd\\.bin$`));
  assert.is((await storedBytes(step.user_files[0]))?.toString(), 'line one\nline two\n');
  assert.ok((await storedBytes(step.user_files[1]))?.equals(binary));
  const rows = await parts.db.query('SELECT original_name, size_bytes FROM uploaded_files WHERE agent_id = $1 ORDER BY id', [agent.id]);
  assert.equal(rows.map((r) => [r.original_name, Number(r.size_bytes)]), [['report.txt', 18], ['../../etc/passwd.bin', 3000]]);
  assert.equal((await commMessages(thread.id, admin))[0].files, ['report.txt', 'passwd.bin']);
});

intake('attachments that do not fit the agent\'s storage quota: 552, nothing stored, and the next mail gets in', async () => {
  const { agent, user, address } = await mailAgent();
  const { parts } = await testServer();
  const quota = parts.config.agentStorageBytes;
  parts.config.agentStorageBytes = 4000; // the intake reads the quota per message
  try {
    const err = await refusal({
      from: 'alice@example.test', to: address, subject: 'full', text: 'x', attachments: [{ filename: 'big.bin', content: Buffer.alloc(5000, 1) }],
    });
    assert.is(err.responseCode, 552);
    assert.match(err.response, /^552 5\.2\.2 Mailbox full: Not enough storage left for this agent/);
    assert.is((await threadsOf(agent.id, user.token)).length, 0);
    assert.equal(await parts.db.query('SELECT id FROM uploaded_files WHERE agent_id = $1', [agent.id]), []);
    assert.equal(await storedKeys(`agent-${agent.id}/`), []);
    await sendMail({ from: 'alice@example.test', to: address, subject: 'small', text: 'x', attachments: [{ filename: 'a.txt', content: 'fits' }] });
    assert.is((await threadsOf(agent.id, user.token)).length, 1);
  } finally {
    parts.config.agentStorageBytes = quota;
  }
});

intake('a reply (In-Reply-To or References) goes to the thread it answers and queues it again', async () => {
  const { agent, user, admin, address } = await mailAgent();
  const first = await sendMail({ from: 'alice@example.test', to: address, subject: 'Plan', text: 'first', messageId: '<first-1@example.test>' });
  assert.match(first.response, /^250/);
  const [thread] = await threadsOf(agent.id, user.token);
  await call(`/api/threads/${thread.id}/remove-from-schedule`, { token: user.token, body: {} });
  await sendMail({
    from: 'alice@example.test', to: address, subject: 'Re: Plan', text: 'second',
    inReplyTo: '<first-1@example.test>', messageId: '<second-2@example.test>',
  });
  await sendMail({ from: 'alice@example.test', to: address, subject: 'Re: Plan', text: 'third', references: ['<unknown@x.test>', '<second-2@example.test>'] });
  let threads = await threadsOf(agent.id, user.token);
  assert.is(threads.length, 1);
  assert.is(threads[0].schedule_sequence, 1, 'queued again');
  assert.equal((await stepsOf(thread.id, user.token)).map((s: any) => s.user_text.split('\n').pop()), ['first', 'second', 'third']);
  assert.equal((await commMessages(thread.id, admin)).map((m) => m.text), ['first', 'second', 'third']);
  // An id we never saw, or one from another agent's thread, starts a new thread.
  await sendMail({ from: 'alice@example.test', to: address, subject: 'Other', text: 'x', inReplyTo: '<never-seen@example.test>' });
  const other = await mailAgent();
  await sendMail({ from: 'alice@example.test', to: other.address, subject: 'Cross', text: 'x', inReplyTo: '<first-1@example.test>' });
  threads = await threadsOf(agent.id, user.token);
  assert.is(threads.length, 2);
  assert.is((await threadsOf(other.agent.id, other.user.token)).length, 1);
});

intake('malformed MIME is stored as text and never stops the intake', async () => {
  const { agent, user, admin, address } = await mailAgent();
  const broken = [
    'From: alice@example.test',
    `To: ${address}`,
    'Subject: =?UTF-8?B?broken',
    'Content-Type: multipart/mixed; boundary="never-closed"',
    'Content-Transfer-Encoding: base64',
    '',
    '--never-closed',
    'Content-Type: text/plain; charset=no-such-charset',
    'Content-Transfer-Encoding: base64',
    '',
    'this is !!! not base64 at all \u0000',
    '--never-closed',
    'Content-Type: application/octet-stream; name=',
    'Content-Disposition: attachment; filename*=utf-8\'\'%ZZ%',
    '',
    '\u00ff\u00fe raw bytes',
  ].join('\r\n');
  const info = await sendMail({ envelope: { from: 'alice@example.test', to: [address] }, raw: broken });
  assert.match(info.response, /^250/);
  const headerless = await sendMail({ envelope: { from: 'alice@example.test', to: [address] }, raw: 'no headers, no blank line, just words\r\n' });
  assert.match(headerless.response, /^250/);
  const threads = await threadsOf(agent.id, user.token);
  assert.is(threads.length, 2);
  const texts = [];
  for (const t of threads) texts.push(...(await commMessages(t.id, admin)).map((m) => m.text));
  assert.ok(texts.some((t) => t.includes('this is !!! not base64 at all')), JSON.stringify(texts));
  assert.ok(texts.includes('no headers, no blank line, just words'), JSON.stringify(texts));
  for (const t of threads) assert.match((await stepsOf(t.id, user.token))[0].user_text, /^E-mail from alice@example\.test\n/);
  await sendMail({ from: 'alice@example.test', to: address, subject: 'after', text: 'still fine' });
  assert.is((await threadsOf(agent.id, user.token)).length, 3);
});

intake('when the message cannot be stored the answer is 451 (try again), not 250, and no files stay behind', async () => {
  const { parts } = await testServer();
  const { agent, user, address } = await mailAgent();
  // The same intake over a database whose transactions fail, as when PostgreSQL is down.
  const down = { ...parts.db, tx: async () => { throw new Error('database is down'); } };
  const broken = new SmtpIntake({
    db: down, bus: parts.bus, log: { info: () => {}, error: () => {} }, blobs: parts.blobs,
    storageQuota: () => parts.config.agentStorageBytes, port: 0, mailDomain: 'localhost', maxBytes: 1024 * 1024,
    auth: () => 'off', limits: parts.config.mailLimits });
  const port = await broken.listen();
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ from: 'alice@example.test', to: address, subject: 'lost?', text: 'x', attachments: [{ filename: 'a.txt', content: 'a' }] });
    assert.unreachable('accepted');
  } catch (err: any) {
    assert.is(err.responseCode, 451);
    assert.match(err.response, /^451 4\.3\.0 /);
  } finally {
    transport.close();
    await broken.close();
  }
  assert.is((await threadsOf(agent.id, user.token)).length, 0);
  assert.equal(await storedKeys(`agent-${agent.id}/`), [], 'the attachment was removed again');
});

intake.run();
