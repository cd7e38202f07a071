// Single sign-on (issue 49) against a real OpenID Provider (oidc-provider) on a real server and database: accounts made
// at the first sign-in (e-mail from userinfo), linked only on a verified e-mail, the admin role following the groups
// both ways, allowed domains, the provider's errors by code, forged ID tokens refused, back-channel logout ending every
// session of the sub, RP-initiated logout, SIGNIN=oidc-only with its break-glass admin, and the settings' checks.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { loadConfig, type OidcConfig } from '../../server/config/index.ts';
import { createUser } from '../../server/auth/users.ts';
import { startSso, type Sso } from '../../server/sso/index.ts';
import { ADMIN, call, testServer, uniqueEmail } from './helpers.ts';
import { startProvider, type TestProvider } from './fixtures/oidc-provider.ts';
import { forgedToken, ssoRoundTrip, type Jar } from './oidc-helpers.ts';

const CLIENT = { client_id: 'workspace', client_secret: 'a client secret of thirty-two bytes or more' };
let op: TestProvider;
let rp: string;
const logged: string[] = [];

async function useSso(change: Partial<OidcConfig> = {}, issuer = op.issuer): Promise<Sso> {
  const { parts } = await testServer();
  const config: OidcConfig = {
    issuer, clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret, privateKey: null, scopes: 'openid email profile groups',
    name: 'Sign in with Test IdP', adminGroups: ['aw-admins'], groupsClaim: 'groups', allowedDomains: [], ...change,
  };
  const log = { info: (m: string) => logged.push(m), error: (m: string) => logged.push(m) };
  parts.sso = startSso(config, {
    db: parts.db, bus: parts.bus, log: log as never, auth: parts.auth, publicUrl: null, port: () => parts.port, breakGlass: ADMIN.email,
  });
  await parts.sso.rp.discover().catch(() => {});
  return parts.sso;
}

/** The provider (once), and single sign-on with it on the shared test server for this suite only. */
async function setup() {
  if (!op) {
    rp = (await testServer()).url;
    op = await startProvider({ rp, clients: [CLIENT], users: {} });
    (globalThis as any).__teardown.push(() => op.close());
  }
  await useSso();
}

/** The other suites share this server: they see no single sign-on, as configured. */
async function teardown() {
  (await testServer()).parts.sso = null;
}

/** A fresh provider user; `login` is their sub. */
function opUser(fields: { email?: string; email_verified?: boolean; groups?: string[] } = {}): string {
  const login = `u${Math.random().toString(36).slice(2, 10)}`;
  op.users.set(login, { email: uniqueEmail('sso'), email_verified: true, name: `Person ${login}`, groups: [], ...fields });
  return login;
}

/** The signed-in session's access token, asked for with the refresh cookie (as the page does). */
async function tokenOf(jar: Jar): Promise<{ status: number; token?: string }> {
  const res = await call('/api/auth/token', { body: {}, headers: { cookie: jar.header() } });
  return { status: res.status, token: res.body?.token };
}

async function me(jar: Jar) {
  const { token } = await tokenOf(jar);
  return (await call('/api/users/me', { token })).body;
}

async function events(action: string, since: number) {
  const { parts } = await testServer();
  return parts.db.query<any>('SELECT * FROM audit_events WHERE action = $1 AND id > $2 ORDER BY id', [action, since]);
}
async function lastEvent(): Promise<number> {
  const { parts } = await testServer();
  return Number((await parts.db.query<{ n: number }>('SELECT coalesce(max(id), 0) AS n FROM audit_events'))[0].n);
}

// ---

const flow = suite('oidc: signing in');
flow.before(setup);
flow.after(teardown);

flow('a new user signs in at the provider and lands signed in, their account made (e-mail from userinfo)', async () => {
  const login = opUser();
  const since = await lastEvent();
  const trip = await ssoRoundTrip(rp, login);
  assert.is(trip.location, '/?signed_in=1');
  assert.ok(trip.callback?.includes('code=') && trip.callback.includes('state='));
  assert.ok(trip.jar.cookies.get('aw_refresh'), 'the refresh cookie is set');
  assert.not.ok(trip.jar.cookies.has('aw_oidc_flow'), 'the flow cookie is cleared');
  const user = await me(trip.jar);
  assert.is(user.email, op.users.get(login)!.email);
  assert.is(user.role, 'user');
  assert.is(user.name, `Person ${login}`);
  const [made] = await events('auth.sign_up', since);
  assert.equal([made.detail.method, made.detail.issuer, Number(made.target_id)], ['oidc', op.issuer, user.id]);
  assert.is((await events('auth.sign_in', since)).length, 1);
  // The second time, the same account (by issuer and sub, even with a new e-mail).
  op.users.get(login)!.email = uniqueEmail('renamed');
  const again = await ssoRoundTrip(rp, login);
  assert.is((await me(again.jar)).id, user.id);
  assert.is((await events('auth.sign_up', since)).length, 1);
  // The admin's user list says how the account signs in.
  const listed = (await call(`/api/users/?search=${encodeURIComponent(user.email)}`, { token: (await adminSignIn()) })).body;
  assert.equal(listed.find((u: any) => u.id === user.id)?.sign_in, ['sso']);
});

flow('a new signing key at the provider: taken once its JWKS is fetched again for the unknown kid, at most once a minute', async () => {
  const login = opUser();
  // The library keeps the JWKS for 5 minutes and asks again for an unknown kid only when its copy is a minute old.
  // The clock of this process (server and provider alike) is moved on to show both without waiting.
  const realNow = Date.now;
  const at = (ahead: number) => (Date.now = () => realNow() + ahead);
  try {
    at(301_000); // past the cache's life: this sign-in fetches the keys afresh
    assert.is((await ssoRoundTrip(rp, login)).location, '/?signed_in=1');
    const fetched = op.jwksFetches;
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    op.published = [{ ...(await exportJWK(publicKey)), kid: 'op-key-2', alg: 'RS256', use: 'sig' }];
    op.forge = (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'op-key-2' }).sign(privateKey);
    // The provider signs with its new key at once: within the minute its ID token is refused, the JWKS not asked for.
    assert.is((await ssoRoundTrip(rp, login)).location, '/?sign_in_error=id_token');
    assert.is(op.jwksFetches, fetched);
    at(301_000 + 61_000);
    assert.is((await ssoRoundTrip(rp, login)).location, '/?signed_in=1');
    assert.is(op.jwksFetches, fetched + 1);
    // A key nobody publishes is refused even then.
    op.forge = async (claims) => forgedToken(op, claims, 'other-key');
    assert.is((await ssoRoundTrip(rp, login)).location, '/?sign_in_error=id_token');
  } finally {
    Date.now = realNow;
    op.forge = null;
    op.published = [];
  }
});

async function adminSignIn(): Promise<string> {
  return (await call('/api/auth/sign-in', { body: ADMIN })).body.token;
}

flow('the admin role follows the groups at every sign-in: granted, then revoked', async () => {
  const login = opUser({ groups: ['staff', 'aw-admins'] });
  const since = await lastEvent();
  const first = await ssoRoundTrip(rp, login);
  assert.is((await me(first.jar)).role, 'admin');
  op.users.get(login)!.groups = ['staff'];
  const next = await ssoRoundTrip(rp, login);
  assert.is((await me(next.jar)).role, 'user');
  const changes = await events('user.role_change', since);
  assert.equal(changes.map((e) => [e.detail.from, e.detail.to, e.detail.by]), [['user', 'admin', 'OIDC_ADMIN_GROUPS'], ['admin', 'user', 'OIDC_ADMIN_GROUPS']]);
  // The session made while an admin is no admin's any more: roles are read from the database.
  const { token } = await tokenOf(first.jar);
  assert.is((await call('/api/users/', { token })).status, 403);
});

flow('an existing password account is linked only when the provider says its e-mail is verified', async () => {
  const { parts } = await testServer();
  const email = uniqueEmail('linked');
  const existing = await createUser(parts.db, email, 'correct horse battery');
  const login = opUser({ email: email.toUpperCase(), email_verified: false });
  const refused = await ssoRoundTrip(rp, login);
  assert.is(refused.location, '/?sign_in_error=unverified');
  assert.not.ok(refused.jar.cookies.get('aw_refresh'));
  op.users.get(login)!.email_verified = true;
  const since = await lastEvent();
  const linked = await ssoRoundTrip(rp, login);
  assert.is((await me(linked.jar)).id, existing.id);
  const [link] = await events('auth.oidc_link', since);
  assert.is(link.detail.sub, login);
  // The password still works, and the list says both.
  assert.is((await call('/api/auth/sign-in', { body: { email, password: 'correct horse battery' } })).status, 200);
  const listed = (await call(`/api/users/?search=${encodeURIComponent(email)}`, { token: await adminSignIn() })).body;
  assert.equal(listed[0].sign_in, ['password', 'sso']);
  // Another account of the same provider with that e-mail is not linked to it as well.
  const other = opUser({ email });
  assert.is((await ssoRoundTrip(rp, other)).location, '/?sign_in_error=linked_elsewhere');
});

flow('allowed domains are enforced; the provider\'s errors and a wrong state come back as codes', async () => {
  await useSso({ allowedDomains: ['corp.test'] });
  try {
    assert.is((await ssoRoundTrip(rp, opUser({ email: 'ann@elsewhere.test' }))).location, '/?sign_in_error=domain');
    assert.is((await ssoRoundTrip(rp, opUser({ email: 'ann@corp.test', email_verified: false }))).location, '/?sign_in_error=domain');
    assert.is((await ssoRoundTrip(rp, opUser({ email: `bob-${Date.now()}@Corp.test` }))).location, '/?signed_in=1', 'domains compare without case');
  } finally {
    await useSso();
  }
  assert.is((await ssoRoundTrip(rp, opUser(), { abort: true })).location, '/?sign_in_error=access_denied');
  // The callback without this browser's flow, and with another state than the one sent.
  const noFlow = await fetch(`${rp}/api/auth/oidc/callback?code=x&state=y`, { redirect: 'manual' });
  assert.is(noFlow.headers.get('location'), '/?sign_in_error=state');
  const start = await fetch(`${rp}/api/auth/oidc/start`, { redirect: 'manual' });
  const cookie = start.headers.getSetCookie()[0].split(';')[0];
  assert.match(start.headers.getSetCookie()[0], /HttpOnly; SameSite=Lax; Max-Age=600/);
  const wrongState = await fetch(`${rp}/api/auth/oidc/callback?code=x&state=not-the-one`, { redirect: 'manual', headers: { cookie } });
  assert.is(wrongState.headers.get('location'), '/?sign_in_error=state');
  // The authorization request: code flow, PKCE S256, state and nonce.
  const sent = new URL(start.headers.get('location')!);
  assert.is(sent.searchParams.get('response_type'), 'code');
  assert.is(sent.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(sent.searchParams.get('state') && sent.searchParams.get('nonce') && sent.searchParams.get('code_challenge'));
});

flow('forged ID tokens are refused: another key, none, HS256, wrong aud, iss or azp, a replayed nonce, expired, from the future', async () => {
  const now = Math.floor(Date.now() / 1000);
  // A control: re-signed by the provider's key with its claims unchanged, the token is taken (and its nonce noted).
  let earlierNonce = '';
  op.forge = (claims) => {
    earlierNonce = claims.nonce as string;
    return forgedToken(op, claims);
  };
  try {
    assert.is((await ssoRoundTrip(rp, opUser())).location, '/?signed_in=1');
    // Each with the check that refused it, as the audit trail's event says.
    const forgeries: [string, RegExp, (c: Record<string, unknown>) => Promise<string>][] = [
      ['another key', /signature verification failed/, (c) => forgedToken(op, c, 'other-key')],
      ['alg none', /"alg"/, (c) => forgedToken(op, c, 'none')],
      ['HS256 with the client secret', /"alg"/, (c) => forgedToken(op, c, 'hs256', CLIENT.client_secret)],
      ['wrong aud', /"aud"/, (c) => forgedToken(op, { ...c, aud: 'someone-else' })],
      ['several audiences without azp', /untrusted audiences/, (c) => forgedToken(op, { ...c, aud: [CLIENT.client_id, 'someone-else'] })],
      ['wrong iss', /"iss"/, (c) => forgedToken(op, { ...c, iss: 'http://evil.test' })],
      ['a replayed nonce', /"nonce"/, (c) => forgedToken(op, { ...c, nonce: earlierNonce })],
      ['expired', /"exp"/, (c) => forgedToken(op, { ...c, iat: now - 600, exp: now - 120 })],
      ['issued in the future', /future \(iat\)/, (c) => forgedToken(op, { ...c, iat: now + 300, exp: now + 900 })],
    ];
    const { parts } = await testServer();
    for (const [what, why, forge] of forgeries) {
      op.forge = forge;
      const login = opUser();
      const since = await lastEvent();
      const trip = await ssoRoundTrip(rp, login);
      assert.is(trip.location, '/?sign_in_error=id_token', what);
      assert.not.ok(trip.jar.cookies.get('aw_refresh'), `${what}: no session`);
      const made = await parts.db.query('SELECT 1 FROM oidc_accounts WHERE subject = $1', [login]);
      assert.is(made.length, 0, `${what}: no account`);
      const [refused] = await events('auth.sign_in_failed', since);
      assert.match(refused.detail.reason, why, what);
    }
  } finally {
    op.forge = null;
  }
});

flow('an issuer that does not answer is logged clearly at start, and its button comes back with a readable code', async () => {
  const closed = `http://127.0.0.1:${1 + Math.floor(Math.random() * 1000)}`;
  logged.length = 0;
  await useSso({}, closed);
  try {
    assert.ok(logged.some((m) => m.includes(`OIDC_ISSUER=${closed} cannot be used`) && m.includes('password sign-in is not affected')), logged.join('\n'));
    const start = await fetch(`${rp}/api/auth/oidc/start`, { redirect: 'manual' });
    assert.is(start.headers.get('location'), '/?sign_in_error=unreachable');
    assert.is((await call('/api/auth/sign-in', { body: ADMIN })).status, 200, 'passwords still sign in');
  } finally {
    await useSso();
  }
});

flow.run();

// ---

const logout = suite('oidc: signing out');
logout.before(setup);
logout.after(teardown);

logout('back-channel logout from the provider ends every session of the sub; a bad logout_token is refused', async () => {
  const login = opUser();
  const first = await ssoRoundTrip(rp, login);
  const second = await ssoRoundTrip(rp, login);
  const { token } = await tokenOf(first.jar);
  assert.is((await call('/api/users/me', { token })).status, 200);
  const { parts } = await testServer();
  const [{ sid }] = await parts.db.query<{ sid: string }>(
    'SELECT s.sid FROM oidc_sessions s JOIN oidc_accounts a ON a.id = s.account_id WHERE a.subject = $1 LIMIT 1', [login]);
  assert.ok(sid, 'the ID token named the provider session');

  // Forged logout tokens first: nothing ends.
  const now = Math.floor(Date.now() / 1000);
  const event = { 'http://schemas.openid.net/event/backchannel-logout': {} };
  const good = { iss: op.issuer, aud: CLIENT.client_id, iat: now, jti: `j-${now}`, sub: login, events: event };
  const bad: [string, string][] = [
    ['another key', await forgedToken(op, good, 'other-key')],
    ['alg none', await forgedToken(op, good, 'none')],
    ['HS256', await forgedToken(op, good, 'hs256', CLIENT.client_secret)],
    ['wrong aud', await forgedToken(op, { ...good, aud: 'someone-else' })],
    ['wrong iss', await forgedToken(op, { ...good, iss: 'http://evil.test' })],
    ['no event', await forgedToken(op, { ...good, events: {} })],
    ['a nonce (an ID token)', await forgedToken(op, { ...good, nonce: 'n' })],
    ['neither sub nor sid', await forgedToken(op, { ...good, sub: undefined })],
    ['too old', await forgedToken(op, { ...good, iat: now - 3600 })],
  ];
  for (const [what, logoutToken] of bad) {
    const res = await postLogout(logoutToken);
    assert.is(res.status, 400, what);
  }
  assert.is((await call('/api/users/me', { token })).status, 200, 'the session lives on');
  assert.is((await postLogout('')).status, 400);

  const since = await lastEvent();
  await op.backchannelLogout(login, sid);
  assert.is((await call('/api/users/me', { token })).status, 401);
  assert.is((await tokenOf(first.jar)).status, 401);
  assert.is((await tokenOf(second.jar)).status, 401, 'every session of the sub');
  const [ended] = await events('auth.oidc_logout', since);
  assert.equal([ended.detail.sub, ended.detail.sessions_ended], [login, 2]);
  // The same token again (its jti) is refused.
  const replay = await forgedToken(op, good);
  assert.is((await postLogout(replay)).status, 200);
  assert.is((await postLogout(replay)).status, 400);
});

async function postLogout(logoutToken: string) {
  return call('/api/auth/oidc/backchannel-logout', {
    raw: new URLSearchParams({ logout_token: logoutToken }).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, method: 'POST',
  });
}

logout('sign-out of a provider\'s session sends the browser to its end_session_endpoint; a password session gets none', async () => {
  const trip = await ssoRoundTrip(rp, opUser());
  const out = await call('/api/auth/sign-out', { body: {}, headers: { cookie: trip.jar.header() } });
  assert.is(out.status, 200);
  const end = new URL(out.body.end_session_url);
  assert.is(end.origin + end.pathname, `${op.issuer}/session/end`);
  assert.is(end.searchParams.get('post_logout_redirect_uri'), `${rp}/`);
  assert.ok(end.searchParams.get('id_token_hint'));
  assert.is((await tokenOf(trip.jar)).status, 401);
  const signedIn = await call('/api/auth/sign-in', { body: ADMIN });
  const cookie = signedIn.headers.get('set-cookie')!.split(';')[0];
  assert.is((await call('/api/auth/sign-out', { body: {}, headers: { cookie } })).status, 204);
});

logout.run();

// ---

const only = suite('oidc: SIGNIN=oidc-only and the settings');
only.before(setup);
only.after(teardown);

only('with oidc-only, passwords sign in only the break-glass admin, and nobody signs up', async () => {
  const { parts } = await testServer();
  const email = uniqueEmail('pw');
  await createUser(parts.db, email, 'correct horse battery');
  parts.config.signin = 'oidc-only';
  try {
    const refused = await call('/api/auth/sign-in', { body: { email, password: 'correct horse battery' } });
    assert.is(refused.status, 403);
    assert.match(refused.body.detail, /single sign-on/);
    assert.is((await call('/api/auth/sign-in', { body: ADMIN })).status, 200, 'the break-glass admin (ADMIN_EMAIL)');
    assert.is((await call('/api/auth/sign-up', { body: { email: uniqueEmail(), password: 'correct horse battery' } })).status, 403);
    const page = (await call('/api/auth/first-start')).body;
    assert.equal([page.sso_name, page.password_sign_in], ['Sign in with Test IdP', false]);
    assert.is((await ssoRoundTrip(rp, opUser())).location, '/?signed_in=1', 'single sign-on works');
  } finally {
    parts.config.signin = 'any';
  }
  const page = (await call('/api/auth/first-start')).body;
  assert.equal([page.sso_name, page.password_sign_in], ['Sign in with Test IdP', true]);
});

only('private_key_jwt: the client proves itself with its key instead of a secret', async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = 'rp-key-1';
  const other = await startProvider({
    rp, clients: [{ client_id: 'workspace-jwt', jwks: { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' }] } }], users: {},
  });
  try {
    const pem = JSON.stringify({ ...(await exportJWK(privateKey)), kid });
    await useSso({ clientId: 'workspace-jwt', clientSecret: null, privateKey: { pem, alg: 'ES256', kid } }, other.issuer);
    other.users.set('kim', { email: uniqueEmail('kim'), email_verified: true });
    assert.is((await ssoRoundTrip(rp, 'kim')).location, '/?signed_in=1');
  } finally {
    await other.close();
    await useSso();
  }
});

only('the settings are checked at start, each refusal naming its variable', () => {
  const bad: [Record<string, string>, RegExp][] = [
    [{ SIGNIN: 'oidc-only' }, /SIGNIN=oidc-only needs .*OIDC_ISSUER/],
    [{ SIGNIN: 'sso' }, /SIGNIN must be any or oidc-only/],
    [{ OIDC_CLIENT_ID: 'x' }, /OIDC_CLIENT_ID is set but OIDC_ISSUER is not/],
    [{ OIDC_ISSUER: 'http://idp.example.com', OIDC_CLIENT_ID: 'x', OIDC_CLIENT_SECRET: 's' }, /OIDC_ISSUER must be an https URL/],
    [{ OIDC_ISSUER: 'https://idp.example.com' }, /OIDC_CLIENT_ID/],
    [{ OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'x' }, /one client credential/],
    [{ OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'x', OIDC_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----' },
      /OIDC_PRIVATE_KEY must be a private key/],
    [{ OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'x', OIDC_CLIENT_SECRET: 's', OIDC_SCOPES: 'email' }, /OIDC_SCOPES must be .*openid/],
  ];
  for (const [env, message] of bad) assert.throws(() => loadConfig(env), message, JSON.stringify(env));
  const config = loadConfig({
    OIDC_ISSUER: 'https://idp.example.com/realms/x', OIDC_CLIENT_ID: 'x', OIDC_CLIENT_SECRET: 's', OIDC_ADMIN_GROUPS: 'admins, ops',
    OIDC_ALLOWED_DOMAINS: 'Example.com,@corp.test', SIGNIN: 'oidc-only',
  });
  assert.equal([config.signin, config.oidc?.scopes, config.oidc?.adminGroups, config.oidc?.allowedDomains, config.oidc?.groupsClaim],
    ['oidc-only', 'openid email profile', ['admins', 'ops'], ['example.com', 'corp.test'], 'groups']);
});

only.run();
