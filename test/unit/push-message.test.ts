// Web Push's pure parts (server/push): the RFC 8291 encryption against the RFC's own example (Appendix A), and
// what each notification says (the question cut at 100 characters, never more of the thread).
import { createECDH } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encryptPayload, isP256PublicKey, MAX_PLAINTEXT } from '../../server/push/encrypt.ts';
import { notificationOf } from '../../server/push/notification.ts';

const b64 = (text: string) => Buffer.from(text, 'base64url');

const encryption = suite('push: RFC 8291 encryption');

encryption('the RFC\'s example message comes out byte for byte', () => {
  const browser = createECDH('prime256v1');
  browser.setPrivateKey(b64('q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94'));
  assert.is(browser.getPublicKey().toString('base64url'), 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4');
  const keys = { p256dh: browser.getPublicKey(), auth: b64('BTBZMqHH6r4Tts7J_aSIgg') };
  const body = encryptPayload(Buffer.from('When I grow up, I want to be a watermelon'), keys, {
    privateKey: b64('yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw'), salt: b64('DGv6ra1nlYgDCS1FRnbzlw'),
  });
  assert.is(body.toString('base64url'), 'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_'
    + 'yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN');
});

encryption('a fresh key and salt each time; too long a payload is refused; a p256dh must be a point on P-256', () => {
  const browser = createECDH('prime256v1');
  browser.generateKeys();
  const keys = { p256dh: browser.getPublicKey(), auth: Buffer.alloc(16, 7) };
  const [a, b] = [encryptPayload(Buffer.from('same'), keys), encryptPayload(Buffer.from('same'), keys)];
  assert.is.not(a.toString('hex'), b.toString('hex'));
  assert.is(a.length, 86 + 4 + 1 + 16);
  assert.throws(() => encryptPayload(Buffer.alloc(MAX_PLAINTEXT + 1), keys), /over 3993/);
  assert.is(encryptPayload(Buffer.alloc(MAX_PLAINTEXT), keys).length, 4096);
  assert.ok(isP256PublicKey(keys.p256dh));
  const offCurve = Buffer.alloc(65, 1);
  offCurve[0] = 4;
  assert.not.ok(isP256PublicKey(offCurve));
  assert.not.ok(isP256PublicKey(keys.p256dh.subarray(0, 64)));
});

encryption.run();

const notes = suite('push: what a notification says');

notes('each event: a title with the agent\'s name, a fixed sentence or the question\'s first 100 characters, the screen it opens', () => {
  const data = { agent_id: 7, agent_name: 'Ada', thread_id: 42, question: `${'é'.repeat(99)}😀 and more`, to: 'x@example.test', subject: 'Private' };
  const help = notificationOf('run.needs_help', data, '/help/abc', 3);
  assert.equal(help, { type: 'run.needs_help', title: 'Ada needs you', body: `${'é'.repeat(99)}😀`, url: '/help/abc', tag: 'run.needs_help:42' });
  assert.is(notificationOf('run.needs_help', data, null, 3).url, '/agent/7?control=1', 'the link used or expired');
  assert.equal(notificationOf('mail.awaiting_approval', data, null, 3), {
    type: 'mail.awaiting_approval', title: 'Ada\'s e-mail awaits approval', body: 'Read it and approve or change it before it is sent.',
    url: '/agent/7?thread=42', tag: 'mail.awaiting_approval:42',
  });
  assert.equal([notificationOf('billing.limit_reached', data, null, 3).title, notificationOf('billing.limit_reached', data, null, 3).url],
    ['Spend limit reached', '/settings/billing']);
  assert.equal(notificationOf('run.failed', data, null, 3).url, '/agent/7?thread=42');
  assert.is(notificationOf('push.test', {}, null, 3).tag, 'push.test:3');
  for (const type of ['run.needs_help', 'mail.awaiting_approval', 'billing.limit_reached', 'run.failed']) {
    const text = JSON.stringify(notificationOf(type, data, null, 3));
    assert.not.ok(text.includes('Private') || text.includes('example.test') || text.includes('and more'), type);
  }
});

notes.run();
