import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminToken, call, newAgent, newUser } from './helpers.ts';

const settings = suite('email settings');

async function setup() {
  const user = await newUser();
  const agent = await newAgent(user.id);
  const admin = await adminToken();
  const path = `/api/agents/${agent.id}/email-settings`;
  const get = () => call(path, { token: admin });
  const put = (body: unknown) => call(path, { method: 'PUT', token: admin, body });
  return { user, agent, admin, path, get, put };
}

const unique = (p: string) => `${p}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

settings('a new agent has none; PUT trims, drops blank lines and shows the full address', async () => {
  const { get, put } = await setup();
  const empty = await get();
  assert.is(empty.status, 200);
  assert.equal(empty.body, { email_prefix: null, email_accept_from_addresses: null, mail_domain: 'localhost', email_address: null });
  const prefix = unique('Sales');
  const saved = await put({
    email_prefix: `  ${prefix} `,
    email_accept_from_addresses: [' boss@example.com ', '', '   ', '@partner.org', '*.corp.example', 'billing-*@example.com'],
  });
  assert.is(saved.status, 200);
  assert.equal(saved.body, {
    email_prefix: prefix,
    email_accept_from_addresses: ['boss@example.com', '@partner.org', '*.corp.example', 'billing-*@example.com'],
    mail_domain: 'localhost',
    email_address: `${prefix}@localhost`,
  });
  assert.equal((await get()).body, saved.body);
});

settings('empty values are stored as null', async () => {
  const { get, put } = await setup();
  await put({ email_prefix: unique('x'), email_accept_from_addresses: ['a@example.com'] });
  const cleared = await put({ email_prefix: '   ', email_accept_from_addresses: ['', ' '] });
  assert.is(cleared.status, 200);
  assert.is(cleared.body.email_prefix, null);
  assert.is(cleared.body.email_accept_from_addresses, null);
  assert.is(cleared.body.email_address, null);
  assert.is((await put({ email_prefix: null, email_accept_from_addresses: null })).status, 200);
  assert.is((await get()).body.email_prefix, null);
});

settings('a prefix taken by another agent (in any case) is 409 with a clear detail, and nothing changes', async () => {
  const first = await setup();
  const second = await setup();
  const prefix = unique('support');
  assert.is((await first.put({ email_prefix: prefix, email_accept_from_addresses: null })).status, 200);
  await second.put({ email_prefix: unique('mine'), email_accept_from_addresses: ['a@example.com'] });
  const before = (await second.get()).body;
  const taken = await second.put({ email_prefix: prefix.toUpperCase(), email_accept_from_addresses: ['b@example.com'] });
  assert.is(taken.status, 409);
  assert.is(taken.body.detail, `The email prefix "${prefix.toUpperCase()}" is already used by another agent`);
  assert.equal((await second.get()).body, before);
  // Saving an agent's own prefix again (other case) is no conflict.
  assert.is((await first.put({ email_prefix: prefix.toUpperCase(), email_accept_from_addresses: null })).status, 200);
});

settings('bad prefixes and patterns are 422 {detail} and change nothing', async () => {
  const { get, put } = await setup();
  const prefix = unique('ok');
  await put({ email_prefix: prefix, email_accept_from_addresses: ['a@example.com'] });
  const cases: [unknown, unknown, string][] = [
    ['has space', null, 'email_prefix'],
    ['a@b', null, 'email_prefix'],
    ['.dot', null, 'email_prefix'],
    [42, null, 'email_prefix'],
    [prefix, ['example.com'], 'email_accept_from_addresses'],
    [prefix, ['a*b@example.com'], 'email_accept_from_addresses'],
    [prefix, 'a@example.com', 'email_accept_from_addresses'],
    [prefix, [1], 'email_accept_from_addresses'],
  ];
  for (const [email_prefix, email_accept_from_addresses, field] of cases) {
    const res = await put({ email_prefix, email_accept_from_addresses });
    assert.is(res.status, 422, JSON.stringify([email_prefix, email_accept_from_addresses]));
    assert.equal(res.body.detail[0].loc, ['body', field]);
    assert.type(res.body.detail[0].msg, 'string');
  }
  assert.equal((await get()).body.email_accept_from_addresses, ['a@example.com']);
  assert.match((await put({ email_prefix: prefix, email_accept_from_addresses: ['example.com'] })).body.detail[0].msg, /"example.com" is not a pattern/);
});

settings('admin only: the owner gets 403 {detail}, also through impersonation by a non-admin', async () => {
  const { user, agent, admin, path } = await setup();
  for (const method of ['GET', 'PUT']) {
    const body = method === 'PUT' ? { email_prefix: unique('u'), email_accept_from_addresses: null } : undefined;
    const own = await call(path, { method, token: user.token, body });
    assert.is(own.status, 403, method);
    assert.type(own.body.detail, 'string');
    const other = await newUser();
    const impersonating = await call(path, { method, token: other.token, body, headers: { 'X-Impersonate-User-Id': String(user.id) } });
    assert.is(impersonating.status, 403, method);
  }
  assert.is((await call(path, { token: admin })).body.email_prefix, null, 'nothing was saved');
  // An admin acting as the owner may.
  const asOwner = await call(path, { token: admin, headers: { 'X-Impersonate-User-Id': String(user.id) } });
  assert.is(asOwner.status, 200);
  assert.is((await call(`/api/agents/999999/email-settings`, { token: admin })).status, 404);
  assert.is((await call(`/api/agents/${agent.id}/email-settings`)).status, 401);
});

settings.run();
