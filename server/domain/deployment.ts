// Secrets of the whole deployment, made once and kept in the database every instance shares: the first
// instance to start writes one, the others read it (an insert that loses the race reads the winner's).
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.ts';

export async function deploymentSecret(db: Queryable, name: string): Promise<string> {
  await db.query('INSERT INTO deployment_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name, randomBytes(32).toString('base64url'),
  ]);
  const [row] = await db.query<{ value: string }>('SELECT value FROM deployment_secrets WHERE name = $1', [name]);
  return row.value;
}
