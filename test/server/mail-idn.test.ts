import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { asciiAddress, idnView } from '../../server/mail/idn.ts';
import { emailTool } from '../../server/runner/tools/email.ts';
import { ToolInputError } from '../../server/runner/tools/types.ts';
import { testServer } from './helpers.ts';
import { commMessages, mailAgent, sendMail, threadsOf } from './mail-helpers.ts';

// Issue 24 (3): a look-alike recipient (boss@exаmple.com, with a Cyrillic а) must not reach the
// approval page looking like boss@example.com.

const idn = suite('outbound addresses a person can trust');

async function mailedThread() {
  const setup = await mailAgent();
  await sendMail({ from: 'alice@example.test', to: setup.address, subject: 'Ask', text: 'x' });
  const [thread] = await threadsOf(setup.agent.id, setup.user.token);
  return { ...setup, thread };
}

async function draft(setup: Awaited<ReturnType<typeof mailedThread>>, to: string, smtpUtf8 = false) {
  const { parts } = await testServer();
  const agent = { id: setup.agent.id, owner_id: setup.user.id, name: setup.agent.name, email_prefix: setup.prefix };
  return emailTool.run({ to, text: 'hello' }, {
    db: parts.db, bus: parts.bus, agent, threadId: setup.thread.id, signal: new AbortController().signal,
    mailDomain: parts.config.mailDomain, smtpUtf8, computer: null,
  });
}

idn('the email tool stores an IDN recipient in ASCII; the approval list adds its Unicode form and the mixed scripts', async () => {
  const setup = await mailedThread();
  const out = await draft(setup, 'boss@ex\u0430mple.com');
  assert.match(out.text, /to boss@xn--exmple-4nf\.com drafted/);
  await draft(setup, 'Info@Bücher.de');
  await draft(setup, 'plain@example.com');
  const outbound = (await commMessages(setup.thread.id, setup.admin)).filter((m) => m.role === 'outbound');
  assert.equal(outbound.map((m) => [m.to_address, m.to_idn]), [
    ['boss@xn--exmple-4nf.com', { unicode: 'boss@ex\u0430mple.com', mixed_scripts: ['Cyrillic', 'Latin'] }],
    ['Info@xn--bcher-kva.de', { unicode: 'Info@bücher.de', mixed_scripts: null }],
    ['plain@example.com', null],
  ]);
});

idn('a domain without an ASCII form, or a non-ASCII local part without SMTPUTF8, is refused', async () => {
  const setup = await mailedThread();
  for (const [to, message] of [
    ['boss@exa mple.com', /cannot be written in ASCII/],
    ['boss@xn--zz--.com', /cannot be written in ASCII|not an email address/],
    ['чат@example.com', /needs SMTPUTF8.*MAIL_SMTPUTF8/],
    ['no-at-sign', /is not an email address/],
    ['a@localhost', /is not an email address/],
  ] as const) {
    try {
      await draft(setup, to);
      assert.unreachable(`accepted ${to}`);
    } catch (err) {
      assert.instance(err, ToolInputError, to);
      assert.match((err as Error).message, message, to);
    }
  }
  assert.match((await draft(setup, 'чат@пример.рф', true)).text, /to чат@xn--e1afmkfd\.xn--p1ai drafted/);
});

idn('the rules on their own', () => {
  assert.is(asciiAddress('<Boss@EXAMPLE.com.>', false), 'Boss@example.com');
  assert.equal(idnView('a@xn--80ak6aa92e.com'), { unicode: 'a@аррӏе.com', mixed_scripts: null }); // all Cyrillic: no mix in a label
  assert.equal(idnView('a@xn--pple-43d.com'), { unicode: 'a@аpple.com', mixed_scripts: ['Cyrillic', 'Latin'] });
  assert.equal(idnView('a@xn--wgv71a119e.jp'), { unicode: 'a@日本語.jp', mixed_scripts: null });
  assert.is(idnView('a@example.com'), null);
});

idn.run();
