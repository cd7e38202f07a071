import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import { SmtpIntake } from '../../server/mail/smtp-intake.ts';
import { testServer } from './helpers.ts';
import { commMessages, mailAgent, sendMail, smtpPort, stepsOf, threadsOf } from './mail-helpers.ts';

// Issue 21: a mail whose text PostgreSQL cannot store (a NUL byte) got 451 forever. Every text
// taken from a mail is cleaned of control characters first; 5xx only for what can never be stored.

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'aw-mail-clean-'));

function nulMessage(to: string): Buffer {
  return Buffer.from([
    'From: alice@example.test', `To: ${to}`, 'Subject: =?utf-8?Q?Report=00with=07bell?=', 'Message-ID: <nul-\u0000-id@example.test>',
    'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b1"', '',
    '--b1', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: quoted-printable', '',
    'Line one=00 and=1B[31m red', '',
    '--b1', 'Content-Type: text/plain; name="nul\u0000byte.txt"', 'Content-Disposition: attachment; filename="nul\u0000byte.txt"', '',
    'attached', '',
    '--b1', 'Content-Type: application/octet-stream', "Content-Disposition: attachment; filename*=utf-8''tab%09and%00nul.bin", '',
    'second', '',
    '--b1--', '',
  ].join('\r\n'), 'utf8');
}

const clean = suite('mail intake: text that cannot be stored as it came');

clean.after(() => rmSync(dir, { recursive: true, force: true }));

clean('swaks sends an attachment named "nul\\0byte.txt": 250, and the name, subject and body are stored without control characters', async () => {
  const { agent, user, admin, address } = await mailAgent(['@example.test']);
  const file = join(dir, 'nul.eml');
  writeFileSync(file, nulMessage(address));
  const { stdout } = await run('swaks', ['--server', `127.0.0.1:${await smtpPort()}`, '--ehlo', 'client.example.test',
    '--from', 'alice@example.test', '--to', address, '--data', `@${file}`]);
  assert.match(stdout, /^<- {2}250 /m);
  const [thread] = await threadsOf(agent.id, user.token);
  const [m] = await commMessages(thread.id, admin);
  assert.is(m.subject, 'Report with bell');
  // Controls in a decoded body make it look undecodable: the raw text is kept instead, cleaned the same way.
  assert.match(m.text, /Line one/);
  assert.not.match(m.text, /[\u0000-\u0008\u000b-\u001f\u007f]/);
  assert.equal(m.files, ['nulbyte.txt', 'tabandnul.bin']);
  assert.is(thread.name, 'Report with bell');
  const [step] = await stepsOf(thread.id, user.token);
  assert.match(step.user_files[0], /\/nulbyte\.txt$/);
  const { parts } = await testServer();
  const rows = await parts.db.query('SELECT original_name FROM uploaded_files WHERE agent_id = $1 ORDER BY id', [agent.id]);
  assert.equal(rows.map((r) => r.original_name), ['nulbyte.txt', 'tabandnul.bin']);
});

clean('the same raw MIME through nodemailer, with a NUL in the envelope-free headers too, gets in once and is never retried', async () => {
  const { agent, user, address } = await mailAgent(['@example.test']);
  const info = await sendMail({ envelope: { from: 'alice@example.test', to: [address] }, raw: nulMessage(address) });
  assert.match(info.response, /^250 /);
  assert.is((await threadsOf(agent.id, user.token)).length, 1);
});

clean('what the database can never store is a 554, not a 451 to be retried forever', async () => {
  const { parts } = await testServer();
  const { agent, user, address } = await mailAgent();
  const invalid = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
  const db = { ...parts.db, tx: async () => { throw invalid; } };
  const intake = new SmtpIntake({
    db, bus: parts.bus, log: { info: () => {}, error: () => {} }, blobs: parts.blobs, storageQuota: () => parts.config.agentStorageBytes,
    port: 0, mailDomain: 'localhost', maxBytes: 1024 * 1024, auth: () => 'off', limits: parts.config.mailLimits,
  });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: await intake.listen(), secure: false, ignoreTLS: true });
  try {
    const err: any = await transport.sendMail({ from: 'alice@example.test', to: address, text: 'x' }).catch((e) => e);
    assert.is(err.responseCode, 554);
    assert.match(err.response, /^554 5\.6\.0 /);
  } finally {
    transport.close();
    await intake.close();
  }
  assert.is((await threadsOf(agent.id, user.token)).length, 0);
});

clean.run();
