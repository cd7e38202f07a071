// Sign-in tried as an attacker would: parallel guessing, locking the admin out from elsewhere, weak
// passwords, cross-site sign-in (login CSRF), a made-up Host header, and sockets that outlive their token
// or their session.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { Api } from '../../server/http/api.ts';
import { registerAuthRoutes } from '../../server/auth/routes.ts';
import { TokenIssuer } from '../../server/auth/tokens.ts';
import { loadSecretBox } from '../../server/system/secret-box.ts';
import type { Parts } from '../../server/parts.ts';
import { call, newAgent, newUser, openSocket, testServer, uniqueEmail } from './helpers.ts';

/** The test server's key (its data directory's secrets.key, or SECRETS_KEY). */
const secretsOf = (parts: Parts) => loadSecretBox(parts.config.secretsKey, parts.config.dataDir);

type Raw = { status: number; body: any; headers: Record<string, string | string[] | undefined> };

/** A request from a chosen local address (127.0.0.0/8 is all loopback on Linux), or with headers fetch will not send. */
async function raw(path: string, options: { body?: string; headers?: Record<string, string>; from?: string; method?: string } = {}): Promise<Raw> {
  const { url } = await testServer();
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'POST', localAddress: options.from, headers: options.headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const json = (body: object, from?: string, headers: Record<string, string> = {}) =>
  ({ body: JSON.stringify(body), from, headers: { 'Content-Type': 'application/json', ...headers } });

// ---

const guessing = suite('sign-in: guessing');

guessing('40 parallel wrong passwords for one account from one address: 10 answers 401, the other 30 are 429', async () => {
  const email = uniqueEmail('parallel');
  await call('/api/auth/sign-up', { body: { email, password: 'right password here' } });
  const replies = await Promise.all(Array.from({ length: 40 }, () => raw('/api/auth/sign-in', json({ email, password: 'wrong guess!' }, '127.0.0.3'))));
  const count = (status: number) => replies.filter((r) => r.status === status).length;
  assert.is(count(401), 10);
  assert.is(count(429), 30);
  assert.ok(replies.filter((r) => r.status === 429).every((r) => Number(r.headers['retry-after']) > 0));
  // That address stays locked out of the account, even with the right password.
  assert.is((await raw('/api/auth/sign-in', json({ email, password: 'right password here' }, '127.0.0.3'))).status, 429);
});

guessing('a lockout from one address does not lock the account: its owner signs in from another, slowed but not refused', async () => {
  const email = uniqueEmail('victim');
  await call('/api/auth/sign-up', { body: { email, password: 'the owners password' } });
  for (let i = 0; i < 12; i++) await raw('/api/auth/sign-in', json({ email, password: 'attacker guess' }, '127.0.0.4'));
  assert.is((await raw('/api/auth/sign-in', json({ email, password: 'attacker guess' }, '127.0.0.4'))).status, 429);
  const started = Date.now();
  const owner = await raw('/api/auth/sign-in', json({ email, password: 'the owners password' }, '127.0.0.5'));
  assert.is(owner.status, 200);
  assert.type(owner.body.token, 'string');
  assert.ok(Date.now() - started >= 200, 'the account-wide failures slow the next attempt down');
  // A success clears the slowdown for the next time.
  const again = Date.now();
  assert.is((await raw('/api/auth/sign-in', json({ email, password: 'the owners password' }, '127.0.0.5'))).status, 200);
  assert.ok(Date.now() - again < 2000);
});

guessing('an address guessing across many accounts is stopped after 50 failures; right passwords do not use up its allowance', async () => {
  const from = '127.0.0.6';
  const email = uniqueEmail('sprayed');
  await call('/api/auth/sign-up', { body: { email, password: 'sprayed but fine' } });
  for (let i = 0; i < 5; i++) assert.is((await raw('/api/auth/sign-in', json({ email, password: 'sprayed but fine' }, from))).status, 200);
  const statuses = await Promise.all(Array.from({ length: 55 }, (_, i) =>
    raw('/api/auth/sign-in', json({ email: uniqueEmail(`spray${i}`), password: 'password guess' }, from)).then((r) => r.status)));
  assert.is(statuses.filter((s) => s === 401).length, 50);
  assert.is(statuses.filter((s) => s === 429).length, 5);
});

guessing.run();

// ---

const passwords = suite('sign-up: passwords');

passwords('blank, one repeated character, the most common passwords and the e-mail address itself are refused with 422', async () => {
  const email = uniqueEmail('weak');
  for (const password of ['        ', '12345678', 'Password123', 'qwertyuiop', 'zzzzzzzzzz', email.toUpperCase()]) {
    const res = await call('/api/auth/sign-up', { body: { email, password } });
    assert.is(res.status, 422, password);
    assert.equal(res.body.detail[0].loc, ['body', 'password']);
    assert.type(res.body.detail[0].msg, 'string');
  }
  assert.match((await call('/api/auth/sign-up', { body: { email, password: '12345678' } })).body.detail[0].msg, /too common/);
  assert.match((await call('/api/auth/sign-up', { body: { email, password: '          ' } })).body.detail[0].msg, /blank/);
  // Nothing was created along the way; a decent password works.
  assert.is((await call('/api/auth/sign-up', { body: { email, password: 'plum kettle 1987' } })).status, 200);
});

passwords.run();

// ---

const csrf = suite('sign-in: only from our own pages');

csrf('a text/plain body (what a cross-site form can send) is refused with 415 and sets no cookie', async () => {
  const email = uniqueEmail('csrf');
  for (const path of ['/api/auth/sign-up', '/api/auth/sign-in']) {
    const res = await raw(path, { body: JSON.stringify({ email, password: 'plum kettle 1987' }), headers: { 'Content-Type': 'text/plain' } });
    assert.is(res.status, 415, path);
    assert.is(res.body.detail, 'Content-Type must be application/json');
    assert.is(res.headers['set-cookie'], undefined);
  }
  assert.is((await call('/api/auth/sign-in', { body: { email, password: 'plum kettle 1987' } })).status, 401, 'no account was made');
  assert.is((await raw('/api/auth/token', { headers: { Cookie: 'aw_refresh=x' } })).status, 415);
});

csrf('an Origin other than ours is refused with 403; our own (or none, from scripts) is fine', async () => {
  const { url } = await testServer();
  const host = new URL(url).host;
  const email = uniqueEmail('origin');
  const body = { email, password: 'plum kettle 1987' };
  const evil = await raw('/api/auth/sign-up', json(body, undefined, { Origin: 'https://evil.example', Host: host }));
  assert.is(evil.status, 403);
  assert.is(evil.headers['set-cookie'], undefined);
  assert.is((await raw('/api/auth/sign-up', json(body, undefined, { Origin: 'null', Host: host }))).status, 403);
  const own = await raw('/api/auth/sign-up', json(body, undefined, { Origin: `http://${host}`, Host: host }));
  assert.is(own.status, 200);
  assert.match(String(own.headers['set-cookie']), /aw_refresh=/);
  assert.is((await raw('/api/auth/sign-in', json(body))).status, 200);
});

csrf('negotiate builds the hub URL from our own address, never from a Host header someone made up', async () => {
  const { parts } = await testServer();
  const user = await newUser('negotiate');
  const thread = await call('/api/threads/', { token: user.token, body: { agent_id: (await newAgent(user.id)).id } });
  const ask = (host: string) => raw('/api/realtime/negotiate',
    json({ thread_id: thread.body.id, hub: 'thread_hub' }, undefined, { Authorization: `Bearer ${user.token}`, Host: host }));
  const forged = await ask('evil.example');
  assert.is(forged.status, 200);
  assert.match(forged.body.url, new RegExp(`^ws://localhost:${parts.port}/api/realtime/client/hubs/thread_hub\\?access_token=`));
  const own = await ask(`127.0.0.1:${parts.port}`);
  assert.ok(own.body.url.startsWith(`ws://127.0.0.1:${parts.port}/api/`), own.body.url);
  const otherPort = await ask(`127.0.0.1:${parts.port + 1}`);
  assert.ok(otherPort.body.url.startsWith(`ws://localhost:${parts.port}/`), otherPort.body.url);
});

csrf.run();

// ---

const sockets = suite('sockets end with their token and their session');

sockets('a message socket closes with 4401 when its token expires', async () => {
  const { parts } = await testServer();
  const user = await newUser('expiry');
  const agent = await newAgent(user.id);
  const shortLived = await parts.auth.tokens.sign({ id: user.id, role: 'user', email: user.email }, undefined, 2);
  const socket = await openSocket(`/api/messages/agent/${agent.id}/ws?token=${shortLived}`);
  assert.equal(await socket.closedWith(15_000), { code: 4401, reason: 'Token expired' });
  const again = await openSocket(`/api/messages/agent/${agent.id}/ws?token=${shortLived}`);
  assert.is((await again.closedWith(5000))?.code, 4401);
});

sockets('a hub socket closes with 4401 when its hub token expires', async () => {
  const { parts } = await testServer();
  const user = await newUser('hub-expiry');
  const token = await parts.auth.tokens.signFor('realtime:thread_hub', String(user.id), { role: [] }, 2);
  const socket = await openSocket(`/api/realtime/client/hubs/thread_hub?access_token=${token}`, 'json.webpubsub.azure.v1');
  assert.equal(await socket.closedWith(15_000), { code: 4401, reason: 'Token expired' });
});

sockets('sign-out closes the session\'s message, action and hub sockets, and its token opens no new one', async () => {
  const user = await newUser('signout');
  const agent = await newAgent(user.id);
  const thread = await call('/api/threads/', { token: user.token, body: { agent_id: agent.id } });
  const hub = await call('/api/realtime/negotiate', { token: user.token, body: { thread_id: thread.body.id, hub: 'thread_hub' } });
  const messages = await openSocket(`/api/messages/agent/${agent.id}/ws?token=${user.token}`);
  const actions = await openSocket(`/api/actions/agent/${agent.id}/ws?token=${user.token}`);
  const group = await openSocket(hub.body.url, 'json.webpubsub.azure.v1');
  // Another session of the same user is not signed out.
  const other = await call('/api/auth/sign-in', { body: { email: user.email, password: 'correct horse battery' } });
  const survivor = await openSocket(`/api/messages/agent/${agent.id}/ws?token=${other.body.token}`);

  const out = await call('/api/auth/sign-out', { body: {}, headers: { Cookie: user.cookie.split(';')[0] } });
  assert.is(out.status, 204);
  for (const socket of [messages, actions, group]) assert.equal(await socket.closedWith(5000), { code: 4401, reason: 'Signed out' });
  const reopened = await openSocket(`/api/messages/agent/${agent.id}/ws?token=${user.token}`);
  assert.equal(await reopened.closedWith(5000), { code: 4401, reason: 'Signed out' });
  assert.is(survivor.closed, null);
  survivor.ws.close();
});

sockets.run();

// ---
// auth.test.ts covers another key, alg:none, expiry and a tampered payload on the API; these are the rest.

const forged = suite('tokens: right key, wrong everything else');

forged('a token of our own key for another audience or issuer is refused by the API and the feeds', async () => {
  const { parts } = await testServer();
  const user = await newUser('aud');
  const agent = await newAgent(user.id);
  const claims = { id: user.id, role: 'user', email: user.email };
  const hubToken = await parts.auth.tokens.signFor('realtime:thread_hub', String(user.id), { role: ['webpubsub.joinLeaveGroup'] }, 600);
  const otherAudience = await parts.auth.tokens.signFor('some-other-service', String(user.id), { role: 'user' }, 600);
  const otherIssuer = await (await TokenIssuer.load(parts.db, secretsOf(parts), 'evil-issuer', parts.config.authAudience)).sign(claims);
  for (const [what, token] of [['hub token', hubToken], ['other audience', otherAudience], ['other issuer', otherIssuer]]) {
    const res = await call('/api/users/me', { token });
    assert.is(res.status, 401, what);
    assert.is(res.body.detail, 'Invalid or expired token');
    assert.is((await (await openSocket(`/api/messages/agent/${agent.id}/ws?token=${token}`)).closedWith())?.code, 4401, what);
  }
  // The same claims from the real issuer work: the refusals were about audience and issuer alone.
  assert.is((await call('/api/users/me', { token: await parts.auth.tokens.sign(claims) })).status, 200);
});

forged('HS256 signed with the public key (algorithm confusion), a kid of another key, and no exp are refused', async () => {
  const { parts } = await testServer();
  const user = await newUser('confusion');
  const [key] = await parts.db.query<{ kid: string; public_jwk: object }>('SELECT kid, public_jwk FROM signing_keys ORDER BY created_at DESC LIMIT 1');
  const base = { role: 'admin', email: user.email };
  const hs = await new SignJWT(base).setProtectedHeader({ alg: 'HS256', kid: key.kid }).setSubject(String(user.id))
    .setIssuer(parts.config.authIssuer).setAudience(parts.config.authAudience).setExpirationTime('10m')
    .sign(new TextEncoder().encode(JSON.stringify(key.public_jwk)));
  assert.is((await call('/api/users/me', { token: hs })).status, 401);
  // Our key, but without an expiry: a token that would never end is not accepted.
  const issuer = await TokenIssuer.load(parts.db, secretsOf(parts), parts.config.authIssuer, parts.config.authAudience);
  const forever = await (issuer as any).signFor(parts.config.authAudience, String(user.id), { role: 'user' }, 600);
  const [h, p, sig] = forever.split('.');
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
  delete payload.exp;
  const noExp = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`;
  assert.is((await call('/api/users/me', { token: noExp })).status, 401);
  // Garbage in the header: no 500.
  for (const token of ['a.b.c', '....', 'x'.repeat(10_000), 'eyJhbGciOiJFUzI1NiJ9..']) {
    assert.is((await call('/api/users/me', { headers: { Authorization: `Bearer ${token}` } })).status, 401, token.slice(0, 20));
  }
});

const cookies = suite('refresh cookie flags');

cookies('sign-in sets the refresh cookie HttpOnly, SameSite=Strict, Path=/api/auth; Secure over https (proxy header)', async () => {
  const email = uniqueEmail('cookie');
  await call('/api/auth/sign-up', { body: { email, password: 'correct horse battery' } });
  const plain = await raw('/api/auth/sign-in', json({ email, password: 'correct horse battery' }));
  const cookie = String(plain.headers['set-cookie']);
  for (const flag of [/HttpOnly/, /SameSite=Strict/, /Path=\/api\/auth(;|$)/, /Max-Age=\d{5,}/]) assert.match(cookie, flag);
  assert.not.match(cookie, /Secure/, 'plain http on localhost: a Secure cookie would never come back');
  const proxied = await raw('/api/auth/sign-in', json({ email, password: 'correct horse battery' }, undefined, { 'X-Forwarded-Proto': 'https' }));
  assert.match(String(proxied.headers['set-cookie']), /; Secure/);
});

cookies('with an https PUBLIC_URL the cookie is Secure even when the proxy does not say https; sign-out clears it the same way', async () => {
  const { parts } = await testServer();
  const api = new Api({ db: parts.db, log: parts.log, identify: (req, options) => parts.auth.identify(req, options) });
  registerAuthRoutes(api, { auth: parts.auth, bus: parts.bus, signup: 'open', publicUrl: 'https://aw.example.test' });
  const context = (method = 'GET') => ({ requestId: 'test', ip: null, userAgent: null, method, recorded: 0 });
  const server = createServer((req, res) => api.handle(req, res, new URL(req.url!, 'http://localhost'), context(req.method)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const post = (path: string, body: object, headers: Record<string, string> = {}) =>
      fetch(base + path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...headers } });
    const up = await post('/api/auth/sign-up', { email: uniqueEmail('https'), password: 'correct horse battery' });
    assert.is(up.status, 200);
    const cookie = up.headers.get('set-cookie') ?? '';
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /; Secure/);
    const out = await post('/api/auth/sign-out', {}, { Cookie: cookie.split(';')[0] });
    assert.is(out.status, 204);
    assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0.*; Secure/);
    // A page of another origin cannot sign in through it (the cookie is the prize of login CSRF).
    assert.is((await post('/api/auth/sign-in', { email: 'x@example.test', password: 'y' }, { Origin: 'https://evil.example' })).status, 403);
  } finally {
    server.close();
  }
});

forged.run();
cookies.run();
