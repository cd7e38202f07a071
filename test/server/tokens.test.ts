// Personal API tokens (issue 46) on a real server and database: shown once, kept as a hash; `Bearer aw_…` works
// within its scope (read: GET only; write: all but admin routes; admin: an admin's); unknown, expired and revoked
// tokens answer the same 401; a token neither impersonates nor manages tokens; uses are noted, changes audited.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';

const test = suite('api tokens');
const make = (token: string, body: Record<string, unknown>) => call('/api/tokens', { token, body: { expires_in_days: 30, ...body } });

test('a token is shown once, kept as a hash, and acts as its user within its scope', async () => {
  const { parts } = await testServer();
  const user = await newUser('tokens');
  const agent = await newAgent(user.id);
  const made = await make(user.token, { name: 'CI script', scope: 'read' });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const secret: string = made.body.token;
  assert.match(secret, /^aw_[A-Za-z0-9_-]{43}$/);
  assert.is(made.body.prefix, secret.slice(0, 10));
  assert.is(made.headers.get('cache-control'), 'no-store');
  const listed = (await call('/api/tokens', { token: user.token })).body;
  assert.equal(listed.map((t: any) => [t.name, t.scope, t.prefix]), [['CI script', 'read', secret.slice(0, 10)]]);
  assert.not.ok(JSON.stringify(listed).includes(secret), 'the list does not give the secret again');
  const [row] = await parts.db.query<any>('SELECT * FROM api_tokens WHERE id = $1', [made.body.id]);
  assert.not.ok(JSON.stringify(row).includes(secret.slice(10)), 'the database keeps no part of the secret but its prefix');

  const agents = await call('/api/agents/', { token: secret });
  assert.is(agents.status, 200);
  assert.ok(JSON.stringify(agents.body).includes(agent.name));
  const write = await call('/api/threads/', { token: secret, body: { agent_id: agent.id, name: 'from a read token' } });
  assert.is(write.status, 403);
  assert.match(write.body.detail, /may only read/);
  const [used] = await parts.db.query<{ last_used_at: Date | null }>('SELECT last_used_at FROM api_tokens WHERE id = $1', [made.body.id]);
  assert.ok(used.last_used_at, 'its use is noted');

  const writer = (await make(user.token, { name: 'Writer', scope: 'write' })).body.token;
  assert.is((await call('/api/threads/', { token: writer, body: { agent_id: agent.id, name: 'from a write token' } })).status, 201);
  assert.is((await call('/api/admin/agents', { token: writer })).status, 403);
  assert.is((await make(user.token, { name: 'Mine', scope: 'admin' })).status, 422, 'only admins make admin tokens');
});

test('an admin token reaches admin routes, but never impersonates', async () => {
  const admin = await adminToken();
  const user = await newUser('tokens-imp');
  const secret = (await make(admin, { name: 'Ops', scope: 'admin' })).body.token;
  assert.is((await call('/api/admin/agents', { token: secret })).status, 200);
  const impersonating = await call('/api/agents/', { token: secret, headers: { 'X-Impersonate-User-Id': String(user.id) } });
  assert.is(impersonating.status, 403);
  assert.match(impersonating.body.detail, /cannot impersonate/);
  // Nor is a token made while impersonating (it would let the admin act as the user later, unrecorded).
  const whileImpersonating = await call('/api/tokens', {
    token: admin, headers: { 'X-Impersonate-User-Id': String(user.id) }, body: { name: 'x', scope: 'read', expires_in_days: 1 },
  });
  assert.is(whileImpersonating.status, 403);
});

test('unknown, malformed, expired and revoked tokens answer the same 401; revocation is at once', async () => {
  const { parts } = await testServer();
  const user = await newUser('tokens-401');
  const [a, b] = [(await make(user.token, { name: 'A', scope: 'read' })).body, (await make(user.token, { name: 'B', scope: 'read' })).body];
  assert.is((await call('/api/agents/', { token: a.token })).status, 200);
  assert.is((await call(`/api/tokens/${a.id}`, { method: 'DELETE', token: user.token })).status, 204);
  await parts.db.query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [b.id]);
  const answers: unknown[] = [];
  for (const token of [a.token, b.token, `aw_${'x'.repeat(43)}`, 'aw_', `${a.token}x`]) {
    const res = await call('/api/agents/', { token });
    answers.push([res.status, res.body, res.headers.get('www-authenticate')]);
  }
  assert.ok(answers.every((x) => JSON.stringify(x) === JSON.stringify(answers[0])), JSON.stringify(answers));
  assert.equal(answers[0], [401, { detail: 'Invalid or expired token' }, 'Bearer']);
});

test('a token does not manage tokens; the owner and admins revoke, others get 404; every change is audited', async () => {
  const { parts } = await testServer();
  const user = await newUser('tokens-manage');
  const other = await newUser('tokens-other');
  const made = (await make(user.token, { name: 'Writer', scope: 'write' })).body;
  const managing = [['GET', '/api/tokens'], ['POST', '/api/tokens', { name: 'y', scope: 'read' }], ['DELETE', `/api/tokens/${made.id}`]] as const;
  for (const [method, path, body] of managing) {
    const res = await call(path, { method, token: made.token, body });
    assert.is(res.status, 403, `${method} ${path}`);
    assert.match(res.body.detail, /API tokens cannot manage API tokens/);
  }
  assert.is((await call(`/api/tokens/${made.id}`, { method: 'DELETE', token: other.token })).status, 404);
  const admin = await adminToken();
  const all = (await call('/api/admin/tokens', { token: admin })).body;
  assert.ok(all.some((t: any) => t.id === made.id && t.user_email === user.email && !('token' in t) && !('hash' in t)));
  assert.is((await call('/api/admin/tokens', { token: user.token })).status, 403);
  assert.is((await call(`/api/tokens/${made.id}`, { method: 'DELETE', token: admin })).status, 204);
  assert.is((await call('/api/agents/', { token: made.token })).status, 401);
  const events = await parts.db.query<{ action: string; detail: any }>(
    `SELECT action, detail FROM audit_events WHERE target_type = 'token' AND target_id = $1 ORDER BY id`, [String(made.id)]);
  assert.equal(events.map((e) => [e.action, e.detail.name]), [['token.create', 'Writer'], ['token.revoke', 'Writer']]);
  assert.is(events[0].detail.scope, 'write');
});

test('bad input: a name, scope or expiry out of bounds is a 422 naming the field', async () => {
  const user = await newUser('tokens-bad');
  for (const [body, field] of [
    [{ name: '', scope: 'read' }, 'name'], [{ name: 'x'.repeat(101), scope: 'read' }, 'name'], [{ name: 'x', scope: 'root' }, 'scope'],
    [{ name: 'x', scope: 'read', expires_in_days: 0 }, 'expires_in_days'], [{ name: 'x', scope: 'read', expires_in_days: 366 }, 'expires_in_days'],
    [{ name: 'x', scope: 'read', expires_in_days: 1.5 }, 'expires_in_days'],
  ] as const) {
    const res = await call('/api/tokens', { token: user.token, body });
    assert.is(res.status, 422, JSON.stringify(body));
    assert.match(JSON.stringify(res.body.detail), new RegExp(`"${field}: `));
  }
  assert.equal((await call('/api/tokens', { token: user.token })).body, []);
  const never = await call('/api/tokens', { token: user.token, body: { name: 'Forever', scope: 'read', expires_in_days: null } });
  assert.is(never.status, 201);
  assert.is(never.body.expires_at, null);
});

test.run();
