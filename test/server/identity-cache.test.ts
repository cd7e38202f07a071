import { Agent, request } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminToken, call, newUser, testServer } from './helpers.ts';

// Who is asking is cached per token for a second (server/auth/auth.ts).
const cache = suite('auth: the who-is-asking cache');

cache('a change to the user through the API shows on the very next request', async () => {
  const { token } = await newUser();
  assert.is((await call('/api/users/me', { token })).status, 200); // cached now
  assert.is((await call('/api/users/me', { method: 'PUT', token, body: { name: 'Renamed Right Away' } })).status, 200);
  assert.is((await call('/api/users/me', { token })).body.name, 'Renamed Right Away');
  assert.is((await call('/api/users/me/limit', { method: 'PATCH', token, body: { limit_cents: 1234 } })).status, 200);
  assert.is((await call('/api/users/me', { token })).body.monthly_spend_limit_cents, 1234);
});

cache('a user removed behind the API is refused within about a second', async () => {
  const { db } = (await testServer()).parts;
  const { token, id } = await newUser();
  assert.is((await call('/api/users/me', { token })).status, 200);
  await db.query('DELETE FROM users WHERE id = $1', [id]);
  const started = Date.now();
  let status = 200;
  while (status === 200 && Date.now() - started < 5000) status = (await call('/api/users/me', { token })).status;
  assert.is(status, 401);
  assert.ok(Date.now() - started < 2500, `refused after ${Date.now() - started} ms`);
});

cache('impersonation is cached apart from the admin acting alone', async () => {
  const admin = await adminToken();
  const other = await newUser();
  const alone = (await call('/api/users/me', { token: admin })).body;
  const acting = (await call('/api/users/me', { token: admin, headers: { 'X-Impersonate-User-Id': String(other.id) } })).body;
  assert.is(alone.role, 'admin');
  assert.is(acting.id, other.id);
  assert.is((await call('/api/users/me', { token: admin })).body.id, alone.id);
});

cache('one keep-alive connection: each request is the token and impersonation it carries, and changes show', async () => {
  const { url } = await testServer();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const reused: boolean[] = [];
  const me = (token: string, headers: Record<string, string> = {}) => new Promise<any>((resolve, reject) => {
    const req = request(`${url}/api/users/me`, { agent, headers: { Authorization: `Bearer ${token}`, ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d)).on('end', () => resolve({ status: res.statusCode, ...JSON.parse(text) }));
    });
    req.on('socket', () => reused.push(req.reusedSocket)).on('error', reject).end();
  });
  try {
    const admin = await adminToken();
    const a = await newUser();
    const b = await newUser();
    assert.is((await me(a.token)).id, a.id);
    assert.is((await me(b.token)).id, b.id, 'another token on the same connection');
    assert.is((await me(admin, { 'X-Impersonate-User-Id': String(a.id) })).id, a.id);
    assert.is((await me(admin)).role, 'admin', 'the same token without the impersonation header');
    assert.is((await me(a.token, { 'X-Impersonate-User-Id': String(b.id) })).status, 403, 'a user may not impersonate');
    assert.is((await call('/api/users/me', { method: 'PUT', token: a.token, body: { name: 'Seen On This Connection' } })).status, 200);
    assert.is((await me(a.token)).name, 'Seen On This Connection');
    assert.ok(reused.slice(1).every(Boolean), `one connection throughout: ${reused}`);
  } finally {
    agent.destroy();
  }
});

cache.run();
