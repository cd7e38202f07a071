// "Forgot your password?" with a mail relay (SMTP_RELAY_URL): the real server mails a one-time link through the
// relay (a local smtp-server here, speaking the real protocol), the link sets a new password, and an address
// without an account gets the same answer and no mail.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { startMain } from './main-process.ts';

test('a reset link by mail: mailed through the relay, used once, and nothing said about who has an account', async () => {
  const received: string[] = [];
  const relay = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
    onData(stream, _session, done) {
      let text = '';
      stream.on('data', (chunk) => (text += chunk));
      stream.on('end', () => {
        received.push(text);
        done();
      });
    },
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const server = startMain({
    DESKTOP_PROVIDER: 'none', SIGNUP: 'open', SMTP_RELAY_URL: `smtp://127.0.0.1:${(relay.server.address() as AddressInfo).port}`,
    ADMIN_EMAIL: 'admin@reset.test', ADMIN_PASSWORD: 'correct horse battery',
  });
  try {
    const url = await server.listening;
    const post = async (path: string, body: object) => {
      const res = await fetch(url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json().catch(() => null) };
    };
    assert.equal((await (await fetch(`${url}/api/auth/first-start`)).json()).password_reset_by_mail, true);
    assert.is((await post('/api/auth/sign-up', { email: 'lost@reset.test', password: 'the old passphrase' })).status, 200);

    const nobody = await post('/api/auth/password-reset-request', { email: 'nobody@reset.test' });
    const asked = await post('/api/auth/password-reset-request', { email: 'lost@reset.test' });
    assert.equal([nobody.status, asked.status], [202, 202]);
    assert.equal(nobody.body, asked.body, 'the same answer, account or not');
    assert.is(received.length, 1, 'one mail: for the account only');
    const mail = received[0].replace(/=\r?\n/g, '');
    assert.match(mail, /^To: lost@reset\.test/m);
    const token = /\/reset-password#([\w-]+)/.exec(mail)?.[1];
    assert.ok(token, mail);

    assert.is((await post('/api/auth/password-reset', { token, new_password: 'a mailed new passphrase' })).status, 204);
    assert.is((await post('/api/auth/password-reset', { token, new_password: 'once more' })).status, 400, 'used once');
    assert.is((await post('/api/auth/sign-in', { email: 'lost@reset.test', password: 'a mailed new passphrase' })).status, 200);
  } finally {
    await server.remove();
    await new Promise<void>((resolve) => relay.close(() => resolve()));
  }
});

test.run();
