// The credential vault's API (issue 45) on a real server and database: a credential is made, read, changed and
// deleted by its owner; no answer ever carries its password or TOTP secret (not to the owner, another user, an
// admin, or an admin impersonating the owner); bad input is a 422 that names the field; the database keeps only
// ciphertext; the vault key is checked at start and rewrapped from VAULT_KEY_PREVIOUS.
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';
import { checkVaultKey } from '../../server/vault/vault-check.ts';
import { VaultBox, VaultKeyError } from '../../server/vault/vault-box.ts';

const test = suite('vault');
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const TOTP = 'otpauth://totp/Shop:ann?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Shop';
const body = (over: Record<string, unknown> = {}) => ({
  name: 'Shop', username: 'ann@example.com', password: PASSWORD, totp: TOTP, targets: ['https://*.example.com', 'window:xterm'], notes: 'n', ...over,
});
const noValue = (reply: { body: unknown }) => {
  const text = JSON.stringify(reply.body);
  assert.not.ok(text.includes(PASSWORD), 'the password came back');
  assert.not.ok(text.includes('JBSWY3DPEHPK3PXP'), 'the TOTP secret came back');
};

test('the owner makes, reads, changes and deletes a credential; reads say has_password and has_totp, never the values', async () => {
  const user = await newUser('vault');
  const made = await call('/api/credentials', { token: user.token, body: body() });
  assert.is(made.status, 201, JSON.stringify(made.body));
  noValue(made);
  assert.equal({ ...made.body, id: 0, values_changed_at: '', created_at: '', updated_at: '', owner_id: 0 }, {
    id: 0, owner_id: 0, name: 'Shop', username: 'ann@example.com', has_password: true, has_totp: true,
    targets: ['https://*.example.com', 'window:xterm'], notes: 'n', values_changed_at: '', created_at: '', updated_at: '',
    grants: { agent_ids: [], ask_each_time: false },
  });
  const list = await call('/api/credentials', { token: user.token });
  assert.equal(list.body.map((c: any) => c.id), [made.body.id]);
  noValue(list);
  const id = made.body.id;
  const renamed = await call(`/api/credentials/${id}`, { method: 'PATCH', token: user.token, body: { name: 'Shop 2', totp: '' } });
  assert.is(renamed.status, 200);
  assert.is(renamed.body.name, 'Shop 2');
  assert.is(renamed.body.has_totp, false);
  assert.is(renamed.body.has_password, true, 'a value left out is unchanged');
  const again = await call('/api/credentials', { token: user.token, body: body({ name: 'Shop 2' }) });
  assert.is(again.status, 422);
  assert.match(JSON.stringify(again.body), /name: you already have a credential named/);
  const gone = await call(`/api/credentials/${id}`, { method: 'DELETE', token: user.token });
  assert.is(gone.status, 204);
  assert.is((await call(`/api/credentials/${id}`, { token: user.token })).status, 404);
});

test('the database keeps ciphertext only, each value sealed for its own row', async () => {
  const server = await testServer();
  const user = await newUser('vault-db');
  const made = await call('/api/credentials', { token: user.token, body: body() });
  const [row] = await server.parts.db.query<any>('SELECT * FROM credentials WHERE id = $1', [made.body.id]);
  assert.not.ok(JSON.stringify(row).includes(PASSWORD));
  assert.not.ok(JSON.stringify(row).includes('JBSWY3DP'));
  assert.match(row.password_sealed, /^vault:v1:/);
  const other = await call('/api/credentials', { token: user.token, body: body({ name: 'Other' }) });
  // A sealed value moved to another row does not open there.
  await server.parts.db.query('UPDATE credentials SET username_sealed = $1 WHERE id = $2', [row.username_sealed, other.body.id]);
  let opened = true;
  try {
    server.parts.vault!.box.open(row.username_sealed, `credential:${other.body.id}:username`);
  } catch {
    opened = false;
  }
  assert.is(opened, false);
  const read = await call(`/api/credentials/${other.body.id}`, { token: user.token });
  assert.is(read.body.username, '', 'a value that does not open reads as empty, and the credential can still be deleted');
  assert.is((await call(`/api/credentials/${other.body.id}`, { method: 'DELETE', token: user.token })).status, 204);
});

test('bad input: a target that is no origin or window pattern, a value over 4 KB, a bad TOTP, a grant to a foreign agent', async () => {
  const user = await newUser('vault-bad');
  const cases: [Record<string, unknown>, RegExp][] = [
    [body({ targets: ['https://example.com/login'] }), /targets\[0\]: may not have a path/],
    [body({ targets: ['https://ok.example', 'ftp://x'] }), /targets\[1\]: /],
    [body({ password: 'x'.repeat(4097) }), /password: at most 4 KB/],
    [body({ notes: 'é'.repeat(2049) }), /notes: at most 4 KB/],
    [body({ totp: 'not a key!' }), /totp: not an otpauth/],
    [body({ name: '' }), /name: /],
    [body({ targets: 'https://example.com' }), /targets: must be a list/],
  ];
  for (const [sent, detail] of cases) {
    const reply = await call('/api/credentials', { token: user.token, body: sent });
    assert.is(reply.status, 422, JSON.stringify(sent).slice(0, 80));
    assert.match(JSON.stringify(reply.body.detail), detail);
    assert.not.ok(JSON.stringify(reply.body).includes('x'.repeat(100)), 'the value is not echoed');
  }
  assert.equal((await call('/api/credentials', { token: user.token })).body, [], 'nothing was saved');
  const made = await call('/api/credentials', { token: user.token, body: body() });
  const stranger = await newUser('vault-stranger');
  const foreign = await newAgent(stranger.id);
  const grant = await call(`/api/credentials/${made.body.id}/grants`, {
    method: 'PUT', token: user.token, body: { agent_ids: [foreign.id], ask_each_time: false },
  });
  assert.is(grant.status, 422);
  assert.match(JSON.stringify(grant.body), /agent_ids: agent \d+ not found/);
});

test('grants: the owner grants to their agents, with "ask me before each use"; each grant and revoke is audited by name', async () => {
  const server = await testServer();
  const user = await newUser('vault-grant');
  const [a, b] = [await newAgent(user.id), await newAgent(user.id)];
  const made = await call('/api/credentials', { token: user.token, body: body() });
  const url = `/api/credentials/${made.body.id}/grants`;
  const first = await call(url, { method: 'PUT', token: user.token, body: { agent_ids: [a.id, b.id], ask_each_time: true } });
  assert.equal(first.body.grants, { agent_ids: [a.id, b.id].sort((x, y) => x - y), ask_each_time: true });
  const second = await call(url, { method: 'PUT', token: user.token, body: { agent_ids: [b.id], ask_each_time: false } });
  assert.equal(second.body.grants, { agent_ids: [b.id], ask_each_time: false });
  const events = await server.parts.db.query<{ action: string; detail: any }>(
    `SELECT action, detail FROM audit_events WHERE target_type = 'credential' AND target_id = $1 ORDER BY id`, [String(made.body.id)]);
  assert.equal(events.map((e) => e.action), ['credential.create', 'credential.grant', 'credential.grant', 'credential.revoke']);
  assert.ok(events.every((e) => e.detail.name === 'Shop'));
  assert.not.ok(JSON.stringify(events).includes(PASSWORD));
});

test('who may read: another user and an admin get 404; an admin impersonating the owner sees it, without values', async () => {
  const owner = await newUser('vault-owner');
  const other = await newUser('vault-other');
  const admin = await adminToken();
  const made = await call('/api/credentials', { token: owner.token, body: body() });
  const id = made.body.id;
  for (const token of [other.token, admin]) {
    assert.is((await call(`/api/credentials/${id}`, { token })).status, 404);
    assert.is((await call(`/api/credentials/${id}/fills`, { token })).status, 404);
    assert.is((await call(`/api/credentials/${id}`, { method: 'PATCH', token, body: { name: 'x' } })).status, 404);
    assert.is((await call(`/api/credentials/${id}`, { method: 'DELETE', token })).status, 404);
    assert.not.ok((await call('/api/credentials', { token })).body.some((c: any) => c.id === id));
  }
  const asOwner = { 'X-Impersonate-User-Id': String(owner.id) };
  const seen = await call(`/api/credentials/${id}`, { token: admin, headers: asOwner });
  assert.is(seen.status, 200);
  assert.is(seen.body.has_password, true);
  noValue(seen);
  noValue(await call('/api/credentials', { token: admin, headers: asOwner }));
  assert.is((await call(`/api/credentials/${id}`, { token: other.token, headers: asOwner })).status, 403, 'impersonation is for admins only');
});

test('the vault key: a new key does not open the vault; with the old one as VAULT_KEY_PREVIOUS every value is rewrapped', async () => {
  const server = await testServer();
  const db = server.parts.db;
  const current = server.parts.vault!.box;
  const user = await newUser('vault-key');
  const made = await call('/api/credentials', { token: user.token, body: body() });
  const oldKey = randomBytes(32);
  const old = new VaultBox(oldKey, null, 'old');
  const newKey = randomBytes(32);
  // Put the database under the old key, as a deployment that is about to rotate would have it.
  const keep = await db.query<any>('SELECT id, username_sealed, password_sealed, totp_sealed FROM credentials');
  const sealedBack = async (from: { open: VaultBox['open'] }, to: VaultBox) => {
    for (const r of await db.query<any>('SELECT id, username_sealed, password_sealed, totp_sealed FROM credentials')) {
      const label = (f: string) => `credential:${r.id}:${f}`;
      const next = ['username', 'password', 'totp'].map((f) => r[`${f}_sealed`] && to.seal(from.open(r[`${f}_sealed`], label(f)).plain, label(f)));
      await db.query('UPDATE credentials SET username_sealed = $2, password_sealed = $3, totp_sealed = $4 WHERE id = $1', [r.id, ...next]);
    }
    await db.query('UPDATE vault_check SET sealed = $1', [to.seal('agent-workspace vault', 'vault:check')]);
  };
  try {
    await sealedBack(current, old);
    let refused: unknown = null;
    await checkVaultKey(db, new VaultBox(newKey, null, 'VAULT_KEY')).catch((err) => (refused = err));
    assert.instance(refused, VaultKeyError);
    assert.match((refused as Error).message, /VAULT_KEY_PREVIOUS/);
    const rotated = new VaultBox(newKey, oldKey, 'VAULT_KEY');
    assert.ok((await checkVaultKey(db, rotated))! >= 3);
    assert.is(await checkVaultKey(db, new VaultBox(newKey, null, 'VAULT_KEY')), null, 'the new key alone opens it now');
    const [row] = await db.query<any>('SELECT password_sealed FROM credentials WHERE id = $1', [made.body.id]);
    assert.is(new VaultBox(newKey, null, 'x').open(row.password_sealed, `credential:${made.body.id}:password`).plain, PASSWORD);
  } finally {
    // Back under the server's own key, for the other tests.
    const back = new VaultBox(newKey, null, 'new');
    await sealedBack(back, current);
    assert.ok(keep.length > 0);
  }
});

test.run();
