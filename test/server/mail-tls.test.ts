import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import { MailSender } from '../../server/mail/sender.ts';
import { SmtpIntake } from '../../server/mail/smtp-intake.ts';
import { emailTool } from '../../server/runner/tools/email.ts';
import { call, testServer } from './helpers.ts';
import { fakeResolve } from './fake-dns.ts';
import { commMessages, mailAgent, sendMail, threadsOf } from './mail-helpers.ts';
import { waitFor } from './runner-helpers.ts';

// TLS on both sides of mail (issues 21 and 24): STARTTLS on the intake with a certificate made
// here (re-read when it changes), and a relay with credentials that offers no STARTTLS never gets them.

const run = promisify(execFile);
const quiet = { info: () => {}, error: () => {} };
const dir = mkdtempSync(join(tmpdir(), 'aw-mail-tls-'));
const files = { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') };

/** A self-signed certificate for `name` (and 127.0.0.1), written over the intake's files at once. */
async function makeCertificate(name: string): Promise<string> {
  const cert = join(dir, `${name}.cert`);
  const key = join(dir, `${name}.key`);
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2',
    '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name},IP:127.0.0.1`]);
  renameSync(key, files.keyFile);
  renameSync(cert, files.certFile);
  return readFileSync(files.certFile, 'utf8');
}

async function tlsIntake(requireTls: boolean) {
  const { parts } = await testServer();
  const intake = new SmtpIntake({
    db: parts.db, bus: parts.bus, log: quiet, blobs: parts.blobs, storageQuota: () => parts.config.agentStorageBytes,
    port: 0, mailDomain: 'localhost', maxBytes: 1024 * 1024, auth: () => 'hold', resolver: fakeResolve, limits: parts.config.mailLimits,
    tls: files, requireTls,
  });
  return { intake, port: await intake.listen() };
}

/** EHLO, STARTTLS and a handshake by hand (with or without SNI): the common name of the certificate the intake presents. */
function presentedName(port: number, servername?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let buffer = '';
    let step = 0;
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      buffer += chunk;
      if (step === 0 && /^220 /m.test(buffer)) {
        step = 1;
        buffer = '';
        socket.write('EHLO client.example.test\r\n');
      } else if (step === 1 && /^250 /m.test(buffer)) {
        assert.match(buffer, /^250-STARTTLS\r?$/m);
        step = 2;
        buffer = '';
        socket.write('STARTTLS\r\n');
      } else if (step === 2 && /^220 /m.test(buffer)) {
        step = 3;
        socket.removeAllListeners('data');
        const secure = tlsConnect({ socket, rejectUnauthorized: false, ...(servername ? { servername } : {}) }, () => {
          resolve(String(secure.getPeerCertificate().subject.CN));
          secure.end();
        });
        secure.on('error', reject);
      }
    });
  });
}

const intakeTls = suite('mail intake: STARTTLS');

intakeTls.after(() => rmSync(dir, { recursive: true, force: true }));

intakeTls('with a certificate a client upgrades and delivers; when required, MAIL before STARTTLS is refused', async () => {
  const ca = await makeCertificate('mail.test');
  const { agent, user, address } = await mailAgent(['@example.test']);
  const { intake, port } = await tlsIntake(true);
  try {
    const plain = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
    const err: any = await plain.sendMail({ from: 'alice@example.test', to: address, text: 'x' }).catch((e) => e);
    plain.close();
    assert.is(err.responseCode, 530);
    assert.match(err.response, /^530 5\.7\.0 Must issue a STARTTLS command first/);
    const secure = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, requireTLS: true, tls: { ca, servername: 'mail.test' } });
    const info = await secure.sendMail({ from: 'alice@example.test', to: address, subject: 'Over TLS', text: 'encrypted' });
    secure.close();
    assert.match(info.response, /^250 /);
    assert.equal((await threadsOf(agent.id, user.token)).map((t: any) => t.name), ['Over TLS']);
  } finally {
    await intake.close();
  }
});

intakeTls('swaks --tls delivers over the intake\'s STARTTLS', async () => {
  await makeCertificate('mail.test');
  const { agent, user, address } = await mailAgent(['@example.test']);
  const { intake, port } = await tlsIntake(true);
  try {
    const { stdout } = await run('swaks', ['--server', `127.0.0.1:${port}`, '--tls', '--ehlo', 'client.example.test',
      '--from', 'alice@example.test', '--to', address, '--header', 'Subject: Via swaks', '--body', 'hello over TLS']);
    assert.match(stdout, /TLS started/);
    assert.match(stdout, /<~\s+250 /);
    assert.equal((await threadsOf(agent.id, user.token)).map((t: any) => t.name), ['Via swaks']);
  } finally {
    await intake.close();
  }
});

intakeTls('a renewed certificate is used for the next STARTTLS, without a restart', async () => {
  await makeCertificate('mail.test');
  const { intake, port } = await tlsIntake(false);
  try {
    assert.is(await presentedName(port), 'mail.test');
    assert.is(await presentedName(port, 'mail.test'), 'mail.test');
    await makeCertificate('renewed.test');
    assert.is(await presentedName(port), 'renewed.test');
    assert.is(await presentedName(port, 'mail.test'), 'renewed.test');
  } finally {
    await intake.close();
  }
});

// --- the relay side: aiosmtpd offering AUTH but no STARTTLS

type Relay = { port: number; lines: string[]; process: ChildProcess };

async function startRelay(): Promise<Relay> {
  const child = spawn('/usr/bin/python3', [join(import.meta.dirname, 'fixtures', 'auth-relay.py')], { stdio: ['pipe', 'pipe', 'ignore'] });
  const relay: Relay = { port: 0, lines: [], process: child };
  let partial = '';
  child.stdout!.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    relay.lines.push(...lines);
  });
  await waitFor(() => relay.lines.find((l) => l.startsWith('READY ')), 20_000, 'the aiosmtpd relay');
  relay.port = Number(relay.lines.find((l) => l.startsWith('READY '))!.split(' ')[1]);
  return relay;
}

/** A draft the agent made on a mailed thread, queued by the admin. */
async function queuedDraft(text: string) {
  const { parts } = await testServer();
  const setup = await mailAgent();
  await sendMail({ from: 'alice@example.test', to: setup.address, subject: 'Ask', text: 'please answer' });
  const [thread] = await threadsOf(setup.agent.id, setup.user.token);
  const agent = { id: setup.agent.id, owner_id: setup.user.id, name: setup.agent.name, email_prefix: setup.prefix };
  await emailTool.run({ to: 'alice@example.test', text }, {
    db: parts.db, bus: parts.bus, agent, threadId: thread.id, signal: new AbortController().signal,
    mailDomain: parts.config.mailDomain, computer: null,
  });
  const draft = (await commMessages(thread.id, setup.admin)).find((m) => m.role === 'outbound');
  assert.is((await call(`/api/admin/comm-messages/${draft.id}/queue`, { token: setup.admin, body: {} })).status, 200);
  return { ...setup, thread, draft };
}

const relayTls = suite('outbound mail: a relay with credentials must speak STARTTLS');
let relay: Relay;

relayTls.before(async () => {
  await (await testServer()).parts.mailSender!.stop(); // these tests bring their own senders
  relay = await startRelay();
});
relayTls.after(async () => {
  relay.process.stdin!.end();
  await new Promise((r) => relay.process.once('exit', r));
  (await testServer()).parts.mailSender!.start();
});

relayTls('no STARTTLS: the send fails with a clear error on the message and the relay never receives AUTH', async () => {
  const { parts } = await testServer();
  const sender = new MailSender({
    db: parts.db, bus: parts.bus, log: quiet, dataDir: parts.config.dataDir, mailDomain: 'localhost',
    relayUrl: `smtp://relay-user:secret-pass@127.0.0.1:${relay.port}`, maxAttempts: 1, pollMs: 100,
  });
  sender.start();
  try {
    const { draft, thread, admin } = await queuedDraft('must not travel with a clear password');
    const dead = await waitFor(async () => (await commMessages(thread.id, admin)).find((m) => m.id === draft.id && m.outbound_state === 'dead'), 15_000);
    assert.match(dead.last_error, /^the relay 127\.0\.0\.1:\d+ did not start TLS \(STARTTLS\), so its password was not sent; /);
    assert.match(dead.last_error, /fix the relay or set SMTP_RELAY_INSECURE=1/);
    assert.equal(relay.lines.filter((l) => /^(AUTH|DATA)/.test(l)), []);
  } finally {
    await sender.close();
  }
});

relayTls('SMTP_RELAY_INSECURE=1 lets the credentials go in clear (so the test above would see them)', async () => {
  const { parts } = await testServer();
  const sender = new MailSender({
    db: parts.db, bus: parts.bus, log: quiet, dataDir: parts.config.dataDir, mailDomain: 'localhost',
    relayUrl: `smtp://relay-user:secret-pass@127.0.0.1:${relay.port}`, relayInsecure: true, maxAttempts: 1, pollMs: 100,
  });
  sender.start();
  try {
    const { draft, thread, admin } = await queuedDraft('insecure on purpose');
    await waitFor(async () => (await commMessages(thread.id, admin)).find((m) => m.id === draft.id && m.outbound_state === 'success'), 15_000, 'sent');
    assert.ok(relay.lines.some((l) => /^AUTH (PLAIN|LOGIN)$/.test(l)), relay.lines.join('\n'));
  } finally {
    await sender.close();
  }
});

intakeTls.run();
relayTls.run();
