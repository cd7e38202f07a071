// Secrets of the whole deployment, made once and kept in the database every instance shares, sealed with the
// server's key (server/system/secret-box.ts): the first instance to start writes one, the others read it (an
// insert that loses the race reads the winner's); a key that did not seal it stops the start (SecretsKeyError).
import { randomBytes } from 'node:crypto';
import type { Queryable } from './db.ts';
import type { SecretBox } from '../system/secret-box.ts';

/** `make`: a new secret's text (32 random bytes, base64url, unless the secret has a shape of its own: a key pair). */
export async function deploymentSecret(
  db: Queryable, secrets: SecretBox, name: string, make: () => string = () => randomBytes(32).toString('base64url'),
): Promise<string> {
  await db.query('INSERT INTO deployment_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name, secrets.seal(make(), deploymentSecretLabel(name)),
  ]);
  const [row] = await db.query<{ value: string }>('SELECT value FROM deployment_secrets WHERE name = $1', [name]);
  return secrets.open(row.value, deploymentSecretLabel(name));
}

/** Where the sealed secret `name` lives (a sealed value opens only there). */
export function deploymentSecretLabel(name: string): string {
  return `deployment_secrets:${name}`;
}
