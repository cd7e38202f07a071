// How mail attachments are stored: names taken from a mail lose control and bidi characters and are cut at
// 255 UTF-8 bytes like uploads; they count against the same quota as everything else the agent keeps; and
// below the disk's reserve the intake takes no attachment (452, the sending server tries again later).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { AgentStorage } from '../../server/agents/storage.ts';
import { DiskSpace } from '../../server/files/disk-space.ts';
import { SmtpIntake } from '../../server/mail/smtp-intake.ts';
import { storedBytes, storedKeys, testServer } from './helpers.ts';
import { mailAgent, refusal, sendMail, stepsOf, threadsOf } from './mail-helpers.ts';

const MB = 1024 * 1024;
const quiet = { info: () => {}, error: () => {} };
const mail = suite('mail attachments: names, quota and the disk reserve');

mail('attachment names from a mail are stored without bidi or control characters, at most 255 bytes', async () => {
  const { parts } = await testServer();
  const { agent, user, address } = await mailAgent();
  const cjk = '漢';
  await sendMail({
    from: 'alice@example.test', to: address, subject: 'names', text: 'x',
    attachments: [
      { filename: 'invoice\u202Etxt.exe', content: 'a' }, { filename: cjk.repeat(200), content: 'b' }, { filename: cjk.repeat(86), content: 'c' },
      { filename: 'tab\there\u0007.txt', content: 'd' },
    ],
  });
  const [thread] = await threadsOf(agent.id, user.token);
  const [step] = await stepsOf(thread.id, user.token);
  const names = step.user_files.map((p: string) => p.split('/').at(-1));
  assert.equal(names, ['invoicetxt.exe', cjk.repeat(85), cjk.repeat(85), 'tabhere.txt']);
  for (const path of step.user_files) assert.ok(await storedBytes(path), path);
  const rows = await parts.db.query<{ original_name: string }>('SELECT original_name FROM uploaded_files WHERE agent_id = $1 ORDER BY id', [agent.id]);
  for (const { original_name } of rows) assert.not.match(original_name, /[\u0000-\u001f\u202a-\u202e]/);
});

mail('attachments count against the one quota: a screenshot already stored leaves less room (552 with what remains)', async () => {
  const { parts } = await testServer();
  const { agent, user, address } = await mailAgent();
  const saved = parts.config.agentStorageBytes;
  parts.config.agentStorageBytes = 2 * MB;
  try {
    const dir = join(parts.config.dataDir, 'files', `agent-${agent.id}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'screenshot.png'), Buffer.alloc(1.5 * MB));
    const attachments = [{ filename: 'a.bin', content: Buffer.alloc(600 * 1024) }];
    const err = await refusal({ from: 'alice@example.test', to: address, subject: 'big', text: 'x', attachments });
    assert.is(err.responseCode, 552, err.response);
    assert.match(err.response, 'Not enough storage left for this agent: 0.5 MB of its 2 MB remain', err.response);
    assert.is((await threadsOf(agent.id, user.token)).length, 0);
    assert.equal(readdirSync(dir), ['screenshot.png'], 'nothing else kept');
  } finally {
    parts.config.agentStorageBytes = saved;
  }
});

mail('below the disk reserve a mail with attachments gets 452 and nothing is stored; one without attachments still gets in', async () => {
  const { parts } = await testServer();
  const { agent, user, address } = await mailAgent();
  const lines: string[] = [];
  const disk = new DiskSpace({
    dir: parts.config.dataDir, reserveBytes: 100 * MB, log: { info: (m) => lines.push(m), error: (m) => lines.push(m) },
    statfs: async () => ({ bavail: 10 * 256, blocks: 1000 * 256, bsize: 4096 }), // 10 MB free of 1000 MB
  });
  const storage = new AgentStorage({ db: parts.db, config: parts.config, disk });
  const intake = new SmtpIntake({
    db: parts.db, bus: parts.bus, log: quiet, blobs: parts.blobs, storage,
    storageQuota: () => parts.config.agentStorageBytes,
    port: 0, mailDomain: 'localhost', maxBytes: 1024 * 1024, auth: () => 'off', limits: parts.config.mailLimits,
  });
  const port = await intake.listen();
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    try {
      const attachments = [{ filename: 'a.txt', content: 'a' }];
      await transport.sendMail({ from: 'alice@example.test', to: address, subject: 'full disk', text: 'x', attachments });
      assert.unreachable('accepted');
    } catch (err: any) {
      assert.is(err.responseCode, 452);
      assert.match(err.response, /^452 4\.3\.1 Insufficient system storage/);
    }
    assert.is((await threadsOf(agent.id, user.token)).length, 0);
    assert.equal(await storedKeys(`agent-${agent.id}/`), []);
    assert.is(lines.length, 1);
    assert.match(lines[0], 'disk space low');
    const info = await transport.sendMail({ from: 'alice@example.test', to: address, subject: 'just text', text: 'fits' });
    assert.match(info.response, /^250 /);
    assert.is((await threadsOf(agent.id, user.token)).length, 1);
  } finally {
    transport.close();
    await intake.close();
  }
});

mail.run();
