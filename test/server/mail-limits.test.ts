import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { loadConfig, type MailLimits } from '../../server/config/index.ts';
import { SmtpIntake } from '../../server/mail/smtp-intake.ts';
import { call, adminToken, testServer } from './helpers.ts';
import { fakeResolve } from './fake-dns.ts';
import { commMessages, mailAgent, stepsOf, threadsOf } from './mail-helpers.ts';
import { waitFor } from './runner-helpers.ts';

// The intake's limits (issue 24): rates per client address and per sender at RCPT (450), runs
// mail may start per agent per hour (later mail waits), and connections per address (421).

const quiet = { info: () => {}, error: () => {} };

/** An intake of its own over the test server's database, with these limits. */
async function intakeWith(limits: Partial<MailLimits>) {
  const { parts } = await testServer();
  const intake = new SmtpIntake({
    db: parts.db, bus: parts.bus, log: quiet, blobs: parts.blobs, storageQuota: () => parts.config.agentStorageBytes,
    port: 0, mailDomain: 'localhost', maxBytes: 1024 * 1024, auth: () => 'hold', resolver: fakeResolve,
    limits: { ...parts.config.mailLimits, ...limits },
  });
  const port = await intake.listen();
  /** Sends from the given local address (127.0.0.2 is another client); resolves with the reply or rejects with the refusal. */
  const send = async (message: SendMailOptions, localAddress = '127.0.0.1') => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, localAddress, name: 'client.example.test' });
    try {
      return await transport.sendMail(message);
    } finally {
      transport.close();
    }
  };
  const refused = (message: SendMailOptions, localAddress?: string) => send(message, localAddress).then(
    () => { throw new Error('accepted'); }, (err) => err as { responseCode: number; response: string; command: string });
  return { intake, port, send, refused };
}

const rates = suite('mail intake: rates');

rates('past the per-address rate a recipient gets 450 4.7.1; another address is still served', async () => {
  const { address } = await mailAgent(['@example.test']);
  const { intake, send, refused } = await intakeWith({ perIpPerMinute: 3, perSenderPerMinute: 100 });
  try {
    for (let i = 0; i < 3; i++) await send({ from: 'alice@example.test', to: address, subject: `n${i}`, text: 'x' });
    const err = await refused({ from: 'alice@example.test', to: address, subject: 'flood', text: 'x' });
    assert.is(err.responseCode, 450);
    assert.is(err.command, 'RCPT TO');
    assert.match(err.response, /^450 4\.7\.1 /);
    assert.is(intake.counts.throttled, 1);
    assert.match((await send({ from: 'alice@example.test', to: address, subject: 'other client', text: 'x' }, '127.0.0.2')).response, /^250 /);
  } finally {
    await intake.close();
  }
});

rates('past the per-sender rate for one agent a recipient gets 450; other senders and agents still get in', async () => {
  const one = await mailAgent(['@example.test']);
  const two = await mailAgent(['@example.test']);
  const { intake, send, refused } = await intakeWith({ perIpPerMinute: 100, perSenderPerMinute: 2 });
  try {
    await send({ from: 'alice@example.test', to: one.address, subject: 'a', text: 'x' });
    await send({ from: 'alice@example.test', to: one.address, subject: 'b', text: 'x' });
    assert.is((await refused({ from: 'ALICE@example.test', to: one.address, subject: 'c', text: 'x' })).responseCode, 450);
    await send({ from: 'bob@example.test', to: one.address, subject: 'bob', text: 'x' });
    await send({ from: 'alice@example.test', to: two.address, subject: 'two', text: 'x' });
    assert.is((await threadsOf(one.agent.id, one.user.token)).length, 3);
  } finally {
    await intake.close();
  }
});

rates('past the runs per agent per hour a mail is stored but waits, and its step says why', async () => {
  const { agent, user, admin, address } = await mailAgent(['@example.test']);
  const { intake, send } = await intakeWith({ runsPerAgentPerHour: 2 });
  try {
    for (const subject of ['one', 'two', 'three']) {
      assert.match((await send({ from: 'alice@example.test', to: address, subject, text: 'x' })).response, /^250 /);
    }
  } finally {
    await intake.close();
  }
  const threads = await threadsOf(agent.id, user.token);
  const byName = Object.fromEntries(threads.map((t: any) => [t.name, t]));
  assert.ok(byName.one.schedule_sequence && byName.two.schedule_sequence, 'the first two run');
  assert.is(byName.three.schedule_sequence, null);
  assert.is(intake.counts.held, 1);
  assert.match((await stepsOf(byName.three.id, user.token))[0].user_text, /\[Not started: mail already started 2 runs of this agent in the last hour/);
  assert.equal((await commMessages(byName.three.id, admin)).map((m) => [m.held_reason, m.sender_verified]), [['rate', true]]);
});

rates('/api/metrics counts throttled and held mail', async () => {
  const text = (await call('/api/metrics', { token: await adminToken() })).body as string;
  for (const name of ['aw_mail_throttled_total', 'aw_mail_held_total', 'aw_mail_connections_refused_total']) {
    assert.match(text, new RegExp(`# TYPE ${name} counter\\n${name} \\d+\\n`));
  }
});

const connections = suite('mail intake: connections');

/** Opens a raw SMTP connection and resolves with it and its first reply line. */
function open(port: number, localAddress = '127.0.0.1'): Promise<{ socket: Socket; greeting: string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk;
      if (data.includes('\r\n')) resolve({ socket, greeting: data.split('\r\n')[0], closed });
    });
    socket.once('error', reject);
  });
}

connections('one address holds only so many connections (421 past them) while another address still delivers', async () => {
  const { address, agent, user } = await mailAgent(['@example.test']);
  const { intake, port, send } = await intakeWith({ connectionsPerIp: 3 });
  const idle: Socket[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const c = await open(port);
      assert.match(c.greeting, /^220 /);
      idle.push(c.socket);
    }
    const extra = await open(port);
    assert.match(extra.greeting, /^421 4\.7\.0 Too many connections/);
    await extra.closed;
    assert.match((await send({ from: 'alice@example.test', to: address, subject: 'from elsewhere', text: 'x' }, '127.0.0.2')).response, /^250 /);
    assert.is((await threadsOf(agent.id, user.token)).length, 1);
    // A slot given back can be taken again.
    idle.pop()!.destroy();
    const again = await waitFor(async () => {
      const c = await open(port);
      if (/^220 /.test(c.greeting)) return c;
      c.socket.destroy();
      return null;
    }, 10_000, 'a freed slot');
    idle.push(again.socket);
    assert.ok(intake.counts.refusedConnections >= 1);
  } finally {
    for (const s of idle) s.destroy();
    await intake.close();
  }
});

connections('an idle connection is closed after the idle timeout', async () => {
  const { intake, port } = await intakeWith({ idleMs: 300 });
  try {
    const c = await open(port);
    assert.match(c.greeting, /^220 /);
    await c.closed; // the server ends it; uvu would hang (and the run time out) if it never did
  } finally {
    await intake.close();
  }
});

const settings = suite('mail settings in config.ts');

settings('defaults, and a bad value stops the start with one clear line', () => {
  const config = loadConfig({});
  assert.is(config.mailAuth, 'hold');
  assert.equal(config.mailLimits, { perIpPerMinute: 60, perSenderPerMinute: 10, runsPerAgentPerHour: 30, connectionsPerIp: 10, idleMs: 30_000 });
  assert.equal([config.smtpTls, config.smtpRequireTls, config.smtpRelayInsecure, config.mailSmtpUtf8], [null, false, false, false]);
  assert.is(loadConfig({ MAIL_AUTH: 'Enforce' }).mailAuth, 'enforce');
  const bad: [Record<string, string>, RegExp][] = [
    [{ MAIL_AUTH: 'maybe' }, /^MAIL_AUTH must be hold or enforce or off, not "maybe"$/],
    [{ MAIL_RATE_PER_IP_PER_MINUTE: '0' }, /^MAIL_RATE_PER_IP_PER_MINUTE must be a whole number of at least 1, not "0"$/],
    [{ SMTP_IDLE_SECONDS: 'soon' }, /^SMTP_IDLE_SECONDS must be/],
    [{ SMTP_RELAY_INSECURE: 'yes' }, /^SMTP_RELAY_INSECURE must be 1 or 0, not "yes"$/],
    [{ SMTP_TLS_CERT: '/x.pem' }, /^SMTP_TLS_CERT and SMTP_TLS_KEY go together/],
    [{ SMTP_REQUIRE_TLS: '1' }, /^SMTP_REQUIRE_TLS=1 needs a certificate/],
    [{ SMTP_RELAY_URL: 'http://relay.example' }, /^SMTP_RELAY_URL must be smtp:\/\/ or smtps:\/\//],
  ];
  for (const [env, message] of bad) assert.throws(() => loadConfig(env), message, JSON.stringify(env));
});

rates.run();
connections.run();
settings.run();
