import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SignJWT, generateKeyPair } from 'jose';
import { ADMIN, adminToken, call, newUser, testServer, uniqueEmail } from './helpers.ts';

const signUp = suite('auth: sign-up, sign-in, token, sign-out');

signUp('sign-up returns a token and a refresh cookie that is httpOnly and SameSite=Strict', async () => {
  const res = await call('/api/auth/sign-up', { body: { email: uniqueEmail(), password: 'long enough pw' } });
  assert.is(res.status, 200);
  assert.type(res.body.token, 'string');
  const cookie = res.headers.get('set-cookie') ?? '';
  assert.match(cookie, /aw_refresh=[\w-]{20,}/);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  assert.match(cookie, /Path=\/api\/auth/);
});

signUp('sign-up refuses a short password and a bad email with 422 {loc,msg}', async () => {
  const short = await call('/api/auth/sign-up', { body: { email: uniqueEmail(), password: 'short' } });
  assert.is(short.status, 422);
  assert.equal(short.body.detail[0].loc, ['body', 'password']);
  assert.match(short.body.detail[0].msg, /at least 8/);
  const bad = await call('/api/auth/sign-up', { body: { email: 'not-an-email', password: 'long enough pw' } });
  assert.is(bad.status, 422);
  assert.equal(bad.body.detail[0].loc, ['body', 'email']);
});

signUp('sign-up with an existing email (any case) is 409', async () => {
  const email = uniqueEmail();
  await call('/api/auth/sign-up', { body: { email, password: 'long enough pw' } });
  const again = await call('/api/auth/sign-up', { body: { email: email.toUpperCase(), password: 'long enough pw' } });
  assert.is(again.status, 409);
  assert.is(again.body.detail, 'An account with this email already exists');
});

signUp('sign-in with the right password works, and a wrong password or unknown account answer alike', async () => {
  const email = uniqueEmail();
  await call('/api/auth/sign-up', { body: { email, password: 'right password' } });
  const ok = await call('/api/auth/sign-in', { body: { email, password: 'right password' } });
  assert.is(ok.status, 200);
  const wrong = await call('/api/auth/sign-in', { body: { email, password: 'wrong password' } });
  const unknown = await call('/api/auth/sign-in', { body: { email: uniqueEmail('nobody'), password: 'wrong password' } });
  assert.is(wrong.status, 401);
  assert.is(unknown.status, 401);
  assert.equal(wrong.body, unknown.body);
});

signUp('the refresh cookie gives a new access token until sign-out', async () => {
  const { cookie, token } = await newUser();
  const pair = cookie.split(';')[0];
  const fresh = await call('/api/auth/token', { body: {}, headers: { Cookie: pair } });
  assert.is(fresh.status, 200);
  const me = await call('/api/users/me', { token: fresh.body.token });
  assert.is(me.status, 200);
  const out = await call('/api/auth/sign-out', { body: {}, headers: { Cookie: pair } });
  assert.is(out.status, 204);
  assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
  const after = await call('/api/auth/token', { body: {}, headers: { Cookie: pair } });
  assert.is(after.status, 401);
  assert.is(after.body.detail, 'Authentication required');
  assert.ok(token);
});

signUp('an access token is refused over HTTP from the first request after its session signs out; other sessions go on', async () => {
  const user = await newUser('http-out');
  const other = await call('/api/auth/sign-in', { body: { email: user.email, password: 'correct horse battery' } });
  assert.is((await call('/api/users/me', { token: user.token })).status, 200); // its identity is cached now
  assert.is((await call('/api/auth/sign-out', { body: {}, headers: { Cookie: user.cookie.split(';')[0] } })).status, 204);
  const after = await call('/api/users/me', { token: user.token });
  assert.is(after.status, 401);
  assert.is(after.body.detail, 'Signed out');
  assert.match(after.headers.get('www-authenticate') ?? '', /Bearer/);
  assert.is((await call(`/api/agents/`, { token: user.token, body: { name: 'After sign-out' } })).status, 401, 'no change either');
  assert.is((await call('/api/users/me', { token: other.body.token })).body.id, user.id, 'the other session of the same user');
});

signUp('a user changes their password: the current one must come along; their other sessions end, this one goes on', async () => {
  const user = await newUser('new-password');
  const other = await call('/api/auth/sign-in', { body: { email: user.email, password: 'correct horse battery' } });
  const change = (body: object, token = user.token) => call('/api/users/me/password', { method: 'PUT', token, body });
  const wrong = await change({ current_password: 'not it', new_password: 'a brand new passphrase' });
  assert.is(wrong.status, 422);
  assert.is(wrong.body.detail[0].msg, 'The current password is not right');
  assert.is((await change({ current_password: 'correct horse battery', new_password: 'password' })).body.detail[0].msg,
    'This password is too common. Choose one that is harder to guess');
  const changed = await change({ current_password: 'correct horse battery', new_password: 'a brand new passphrase' });
  assert.is(changed.status, 200);
  assert.is(changed.body.sessions_ended, 1);
  assert.is((await call('/api/users/me', { token: user.token })).status, 200, 'the session that changed it goes on');
  assert.is((await call('/api/users/me', { token: other.body.token })).status, 401, 'the other session ended');
  assert.is((await call('/api/auth/sign-in', { body: { email: user.email, password: 'correct horse battery' } })).status, 401);
  assert.is((await call('/api/auth/sign-in', { body: { email: user.email, password: 'a brand new passphrase' } })).status, 200);
  // An admin acting as the user may not choose it for them.
  const admin = await adminToken();
  const asUser = await call('/api/users/me/password', {
    method: 'PUT', token: admin, headers: { 'X-Impersonate-User-Id': String(user.id) },
    body: { current_password: 'a brand new passphrase', new_password: 'chosen by an admin' },
  });
  assert.is(asUser.status, 403);
});

signUp('a lost password: an admin makes a one-time link, the user chooses a new password with it, every session ends', async () => {
  const user = await newUser('reset');
  const admin = await adminToken();
  assert.is((await call(`/api/users/${user.id}/password-reset`, { token: user.token, body: {} })).status, 403, 'admins only');
  const made = await call(`/api/users/${user.id}/password-reset`, { token: admin, body: {} });
  assert.is(made.status, 201);
  assert.match(made.body.path, /^\/reset-password#[\w-]{40,}$/);
  const token = made.body.path.split('#')[1];
  const reset = (body: object) => call('/api/auth/password-reset', { body });
  assert.is((await reset({ token, new_password: 'password' })).status, 422, 'the policy holds');
  // A refused password spent nothing: the link still works.
  assert.is((await reset({ token, new_password: 'a chosen passphrase' })).status, 204);
  assert.is((await call('/api/users/me', { token: user.token })).status, 401, 'every session of the user ended');
  assert.is((await reset({ token, new_password: 'another passphrase' })).body.detail, 'This link has expired or was already used. Ask for a new one.');
  assert.is((await call('/api/auth/sign-in', { body: { email: user.email, password: 'a chosen passphrase' } })).status, 200);
});

signUp('a session ended by another instance (its row gone from the shared database) is refused here within about a second', async () => {
  const { db } = (await testServer()).parts;
  const user = await newUser('http-out-elsewhere');
  assert.is((await call('/api/users/me', { token: user.token })).status, 200);
  // What a sign-out on another instance leaves this one to find: the session's row deleted, nothing said here.
  const { sid } = JSON.parse(Buffer.from(user.token.split('.')[1], 'base64url').toString());
  await db.query('DELETE FROM auth_sessions WHERE id = $1', [sid]);
  const started = Date.now();
  let status = 200;
  while (status === 200 && Date.now() - started < 5000) status = (await call('/api/users/me', { token: user.token })).status;
  assert.is(status, 401);
  assert.ok(Date.now() - started < 2500, `refused after ${Date.now() - started} ms`);
});

signUp('token without a cookie is 401', async () => {
  const res = await call('/api/auth/token', { body: {} });
  assert.is(res.status, 401);
});

signUp.run();

// ---

const tokens = suite('auth: access tokens');

tokens('a request without a token is 401 Authentication required', async () => {
  const res = await call('/api/users/me');
  assert.is(res.status, 401);
  assert.equal(res.body, { detail: 'Authentication required' });
});

tokens('a token signed with another key is refused', async () => {
  const { privateKey } = await generateKeyPair('ES256');
  const forged = await new SignJWT({ role: 'admin' }).setProtectedHeader({ alg: 'ES256' }).setSubject('1')
    .setIssuer('agent-workspace').setAudience('agent-workspace').setIssuedAt().setExpirationTime('15m').sign(privateKey);
  const res = await call('/api/users/me', { token: forged });
  assert.is(res.status, 401);
});

tokens('an alg:none token is refused', async () => {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: '1', role: 'admin', iss: 'agent-workspace', aud: 'agent-workspace', exp: now + 600 })}.`;
  const res = await call('/api/users/me', { token: none });
  assert.is(res.status, 401);
});

tokens('an expired token is refused, a fresh one from the same issuer accepted', async () => {
  const { parts } = await testServer();
  const user = await newUser();
  const expired = await parts.auth.tokens.sign({ id: user.id, role: 'user', email: user.email }, undefined, -60);
  assert.is((await call('/api/users/me', { token: expired })).status, 401);
  const fresh = await parts.auth.tokens.sign({ id: user.id, role: 'user', email: user.email });
  assert.is((await call('/api/users/me', { token: fresh })).status, 200);
});

tokens('a tampered payload breaks the signature', async () => {
  const { token } = await newUser();
  const [h, p, s] = token.split('.');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  claims.sub = '1';
  const tampered = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
  assert.is((await call('/api/users/me', { token: tampered })).status, 401);
});

tokens.run();

// ---

const users = suite('users and impersonation');

users('the bootstrap admin exists and /users/me reports role admin', async () => {
  const me = await call('/api/users/me', { token: await adminToken() });
  assert.is(me.status, 200);
  assert.is(me.body.email, ADMIN.email);
  assert.is(me.body.role, 'admin');
  assert.is(me.body.monthly_spend_limit_cents, 0);
});

users('an admin impersonates a user: every call acts as that user', async () => {
  const target = await newUser('target');
  const admin = await adminToken();
  const me = await call('/api/users/me', { token: admin, headers: { 'X-Impersonate-User-Id': String(target.id) } });
  assert.is(me.status, 200);
  assert.is(me.body.email, target.email);
  assert.is(me.body.role, 'user');
  assert.is(me.body.impersonated_by.email, ADMIN.email);
  const status = await call('/api/users/auth-status', { token: admin, headers: { 'X-Impersonate-User-Id': String(target.id) } });
  assert.is(status.body.impersonating, true);
  // A write while impersonating changes the impersonated user, not the admin.
  await call('/api/users/me/limit', { method: 'PATCH', token: admin, headers: { 'X-Impersonate-User-Id': String(target.id) }, body: { limit_cents: 5000 } });
  assert.is((await call('/api/users/me', { token: target.token })).body.monthly_spend_limit_cents, 5000);
  assert.is((await call('/api/users/me', { token: admin })).body.monthly_spend_limit_cents, 0);
});

users('a user who sends the impersonation header is refused with 403', async () => {
  const a = await newUser();
  const b = await newUser();
  const res = await call('/api/users/me', { token: a.token, headers: { 'X-Impersonate-User-Id': String(b.id) } });
  assert.is(res.status, 403);
  assert.is(res.body.detail, 'Impersonation is for admins only');
});

users('impersonating a missing user is 404', async () => {
  const res = await call('/api/users/me', { token: await adminToken(), headers: { 'X-Impersonate-User-Id': '999999' } });
  assert.is(res.status, 404);
});

users('user search is admin-only and matches part of the email', async () => {
  const u = await newUser('findme');
  assert.is((await call('/api/users/?search=findme', { token: u.token })).status, 403);
  const found = await call('/api/users/?search=FINDME', { token: await adminToken() });
  assert.is(found.status, 200);
  assert.ok(found.body.some((x: any) => x.email === u.email));
  assert.ok(found.body.every((x: any) => x.email.includes('findme')));
  const wildcard = await call('/api/users/?search=%25', { token: await adminToken() });
  assert.is(wildcard.body.length, 0, 'a % in the search is literal, not a wildcard');
});

users('the spend limit accepts whole cents only', async () => {
  const u = await newUser();
  for (const bad of [-1, 1.5, '100', null]) {
    const res = await call('/api/users/me/limit', { method: 'PATCH', token: u.token, body: { limit_cents: bad } });
    assert.is(res.status, 422, `limit ${bad}`);
    assert.equal(res.body.detail[0].loc, ['body', 'limit_cents']);
  }
  const ok = await call('/api/users/me/limit', { method: 'PATCH', token: u.token, body: { limit_cents: 10000 } });
  assert.is(ok.body.monthly_spend_limit_cents, 10000);
});

users('PUT /users/me updates the name', async () => {
  const u = await newUser();
  const res = await call('/api/users/me', { method: 'PUT', token: u.token, body: { name: '  Ada  ' } });
  assert.is(res.status, 200);
  assert.is(res.body.name, 'Ada');
});

users.run();
