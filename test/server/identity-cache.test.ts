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
  const { db } = (await testServer()).services;
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

cache.run();
