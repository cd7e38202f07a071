// A database reader must not become admin (issue: pg_read_all_data read the signing key and the deployment secret,
// forged an admin token with any exp, and signed internal calls): every table read as SQL holds neither in clear;
// a token of the server's own key that lives longer than it issues is refused; migration 015 seals what was kept in
// clear before it (and keeps it); a key that does not open the database stops the start with one line.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { signingKeyLabel, TokenIssuer } from '../../server/auth/tokens.ts';
import { migrate, MIGRATIONS } from '../../server/migrations.ts';
import { record } from '../../server/audit/audit.ts';
import { verifyAudit } from '../../server/audit/read.ts';
import { deploymentSecret } from '../../server/db/deployment-secrets.ts';
import { loadSecretBox, SecretBox } from '../../server/system/secret-box.ts';
import { emptyDb, migrateBefore } from './db-helpers.ts';
import { spawnServer } from './fault-helpers.ts';
import { ADMIN, call, testServer } from './helpers.ts';

const reader = suite('secrets at rest: a database reader');

async function server() {
  const running = await testServer();
  const { config } = running.parts;
  return { ...running, secrets: loadSecretBox(config.secretsKey, config.dataDir), issuer: running.parts.auth.tokens as unknown as Internals };
}
/** What the server holds in memory (the test forges with the key it does have). */
type Internals = { kid: string; privateKey: CryptoKey };

reader('no table read as SQL holds the private signing key or the deployment secret in clear', async () => {
  const { parts, secrets, issuer } = await server();
  const [sealed] = await parts.db.query<{ private_jwk: string }>('SELECT private_jwk FROM signing_keys WHERE kid = $1', [issuer.kid]);
  const d = JSON.parse(secrets.open(sealed.private_jwk, signingKeyLabel(issuer.kid))).d as string; // the server's own key opens it
  const internal = await deploymentSecret(parts.db, secrets, 'internal'); // as an instance without INTERNAL_SECRET keeps it
  const tables = await parts.db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
  assert.ok(tables.some((t) => t.name === 'signing_keys') && tables.some((t) => t.name === 'deployment_secrets'));
  for (const [what, secret] of [['the private key (d)', d], ['the deployment secret', internal]]) {
    for (const { name } of tables) {
      const [{ n }] = await parts.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${name} t WHERE strpos(to_jsonb(t)::text, $1) > 0`, [secret]);
      assert.is(n, 0, `${what} in ${name}`);
    }
  }
  const [row] = await parts.db.query<{ private_jwk: string }>('SELECT private_jwk FROM signing_keys');
  assert.ok(SecretBox.isSealed(row.private_jwk), 'sealed');
});

reader('a token of the server\'s own key that lives longer than it issues, or has no iat, is refused', async () => {
  const { parts, issuer } = await server();
  const me = (await call('/api/users/me', { token: (await call('/api/auth/sign-in', { body: ADMIN })).body.token })).body;
  const now = Math.floor(Date.now() / 1000);
  const forge = (iat: number | null, exp: number) => {
    const jwt = new SignJWT({ role: 'admin', email: me.email }).setProtectedHeader({ alg: 'ES256', kid: issuer.kid, typ: 'JWT' })
      .setSubject(String(me.id)).setIssuer(parts.config.authIssuer).setAudience(parts.config.authAudience).setExpirationTime(exp);
    return (iat === null ? jwt : jwt.setIssuedAt(iat)).sign(issuer.privateKey);
  };
  const status = async (token: string) => (await call('/api/users/me', { token })).status;
  assert.is(await status(await forge(now, now + 900)), 200, 'the lifetime the server issues');
  assert.is(await status(await forge(now, now + 30 * 86_400)), 401, 'thirty days');
  assert.is(await status(await forge(now - 60, now + 901)), 401, 'a second too long');
  assert.is(await status(await forge(null, now + 600)), 401, 'no iat');
  assert.is(await status(await forge(now + 86_400, now + 86_400 + 900)), 401, 'issued tomorrow');
  await parts.auth.tokens.sign(me, undefined, 901).then(() => assert.unreachable(), (err) => assert.match(err.message, /at most/));
});

const upgrade = suite('secrets at rest: migration 015');

upgrade('seals the key, the secret and the chain kept in clear before it, and keeps them working', async () => {
  const { secrets } = await server(); // this process's audit key is the test server's
  const { db, drop } = await emptyDb('sec');
  try {
    await migrateBefore(db, 15);
    // As 014 left them: a plain private JWK, a plain secret, three events hashed by the database (unkeyed).
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const plain = await exportJWK(privateKey);
    await db.query("INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk) VALUES ('old', 'ES256', $1, $2)",
      [JSON.stringify(plain), JSON.stringify(await exportJWK(publicKey))]);
    await db.query("INSERT INTO deployment_secrets (name, value) VALUES ('internal', 'the-old-internal-secret-of-32-characters')");
    await db.query(`DO $$ DECLARE h text; n bigint; t timestamptz; d jsonb; BEGIN
      SELECT last_hash INTO h FROM audit_chain WHERE id = 1 FOR UPDATE;
      FOR i IN 1..3 LOOP
        n := nextval('audit_events_id_seq'); t := clock_timestamp(); d := jsonb_build_object('i', i, 'note', 'old "one"');
        INSERT INTO audit_events (id, at, instance, actor_type, action, detail, prev_hash, hash)
          VALUES (n, t, 'old', 'system', 'old.event', d, h,
            audit_event_hash(h, n, t, 'old', 'system', NULL, NULL, NULL, NULL, 'old.event', NULL, NULL, NULL, NULL, NULL, d));
        h := (SELECT hash FROM audit_events WHERE id = n);
      END LOOP;
      UPDATE audit_chain SET last_id = n, last_hash = h, last_at = t WHERE id = 1;
    END $$`);
    const before = await new SignJWT({ role: 'user', email: 'old@example.test' }).setProtectedHeader({ alg: 'ES256', kid: 'old' })
      .setSubject('1').setIssuer('iss').setAudience('aud').setIssuedAt().setExpirationTime('10m').sign(privateKey);

    await migrate(db).then(() => assert.unreachable(), (err) => assert.match(err.message, /needs the secrets key/));
    assert.equal(await migrate(db, secrets), MIGRATIONS.filter((m) => m.id >= 15).map((m) => m.id));
    const [key] = await db.query<{ private_jwk: string }>('SELECT private_jwk FROM signing_keys');
    assert.ok(SecretBox.isSealed(key.private_jwk) && !key.private_jwk.includes(plain.d!), 'the private key is sealed');
    const [secret] = await db.query<{ value: string }>('SELECT value FROM deployment_secrets');
    assert.ok(SecretBox.isSealed(secret.value) && !secret.value.includes('the-old-internal'), 'the secret is sealed');
    // Kept: the same key signs and verifies (a token from before still holds), the same secret comes back.
    const issuer = await TokenIssuer.load(db, secrets, 'iss', 'aud');
    assert.is((await issuer.verify(before)).email, 'old@example.test');
    assert.is(await deploymentSecret(db, secrets, 'internal'), 'the-old-internal-secret-of-32-characters');
    // The old events verify, and so do keyed ones after them; the old ones can no longer be rewritten either.
    assert.equal(await verifyAudit(db), { ok: true, checked: 3, first_bad_id: null });
    await db.tx(async (t) => {
      await t.query('ALTER TABLE audit_events DISABLE TRIGGER USER');
      await t.query(`UPDATE audit_events SET detail = '{"i": 2, "note": "rewritten"}' WHERE id = 2`);
      await t.query(`UPDATE audit_events SET hash = encode(sha256(convert_to(prev_hash || jsonb_build_array(id, (extract(epoch FROM at) * 1000000)::bigint,
        instance, actor_type, actor_id, actor_label, impersonator_id, impersonator_label, action, target_type, target_id, request_id, ip, user_agent,
        detail)::text, 'UTF8')), 'hex') WHERE id = 2`);
      await t.query('UPDATE audit_events SET prev_hash = (SELECT hash FROM audit_events WHERE id = 2) WHERE id = 3');
      await t.query(`UPDATE audit_events SET hash = encode(sha256(convert_to(prev_hash || jsonb_build_array(id, (extract(epoch FROM at) * 1000000)::bigint,
        instance, actor_type, actor_id, actor_label, impersonator_id, impersonator_label, action, target_type, target_id, request_id, ip, user_agent,
        detail)::text, 'UTF8')), 'hex') WHERE id = 3`);
      await t.query('UPDATE audit_chain SET last_hash = (SELECT hash FROM audit_events WHERE id = 3)');
      assert.equal(await verifyAudit(t), { ok: false, checked: 3, first_bad_id: 3 });
      throw new Error('put back');
    }).catch((err) => assert.is(err.message, 'put back'));
    await db.tx((q) => record(q, { action: 'user.update', detail: { after: 'the upgrade' } }));
    assert.equal(await verifyAudit(db), { ok: true, checked: 4, first_bad_id: null });
  } finally {
    await drop();
  }
});

const start = suite('secrets at rest: the key');

start('made once in the data directory (0600); another key stops the start with one line and changes nothing', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-secrets-'));
  try {
    const env = { DATA_DIR: dataDir, DATABASE_URL: '', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password };
    const first = await spawnServer({ ...env, SECRETS_KEY: '' });
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const file = join(dataDir, 'secrets.key');
    assert.ok(existsSync(file));
    assert.is(statSync(file).mode & 0o777, 0o600);
    const other = randomBytes(32).toString('base64');
    const failed: string = await spawnServer({ ...env, SECRETS_KEY: other }).then(() => assert.unreachable('started'), (err) => err.message);
    // Besides the start's first line (what it is doing), one line: the refusal, no stack trace.
    const lines = failed.replace(/^server exited 1: /, '').trim().split('\n').filter((l) => !l.includes('is starting: opening the database'));
    assert.is(lines.length, 1, failed);
    assert.match(lines[0], /^Agent Workspace cannot start: the secrets key \(SECRETS_KEY\) does not open/);
    // The file's key still opens everything: nothing was made afresh.
    const again = await spawnServer({ ...env, SECRETS_KEY: '' });
    again.child.kill('SIGKILL');
    await new Promise((resolve) => again.child.once('exit', resolve));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

reader.run();
upgrade.run();
start.run();
