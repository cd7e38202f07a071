// Migration 015's step in Node (its SQL: db/migrations/015_secrets_at_rest.sql): seals what was kept in clear before it (the signing
// keys' private JWKs, the deployment secrets) and where the audit chain starts, with the server's key. A database
// with none of these (a new one) needs no key, so tools that only migrate a fresh schema need not give one.
import { signingKeyLabel } from './auth/index.ts';
import { auditKeyOf, isGenesis, startSeal, type ChainStart } from './audit/hash.ts';
import { deploymentSecretLabel } from './db/deployment-secrets.ts';
import { SecretBox } from './system/secret-box.ts';
import type { Queryable } from './db/types.ts';

export async function sealAtRest(q: Queryable, secrets: SecretBox | null): Promise<void> {
  const keys = await q.query<{ kid: string; private_jwk: string }>('SELECT kid, private_jwk FROM signing_keys');
  const values = await q.query<{ name: string; value: string }>('SELECT name, value FROM deployment_secrets');
  const [chain] = await q.query<ChainStart>('SELECT anchor_id, anchor_hash, keyed_from, legacy_hash FROM audit_chain WHERE id = 1');
  if (!keys.length && !values.length && isGenesis(chain)) return;
  if (!secrets) throw new Error('migration 015 seals the secrets this database keeps: it needs the secrets key');
  for (const { kid, private_jwk } of keys) {
    if (SecretBox.isSealed(private_jwk)) continue;
    await q.query('UPDATE signing_keys SET private_jwk = $2 WHERE kid = $1', [kid, secrets.seal(private_jwk, signingKeyLabel(kid))]);
  }
  for (const { name, value } of values) {
    if (SecretBox.isSealed(value)) continue;
    await q.query('UPDATE deployment_secrets SET value = $2 WHERE name = $1', [name, secrets.seal(value, deploymentSecretLabel(name))]);
  }
  if (!isGenesis(chain)) await q.query('UPDATE audit_chain SET seal = $1 WHERE id = 1', [startSeal(chain, auditKeyOf(secrets))]);
}
