// Several servers on one PostgreSQL (DATABASE_URL): INTERNAL_URL, INTERNAL_SECRET, DESKTOP_HOST, DESKTOP_LEASE_STALE_SECONDS.
import { httpUrl, oneOrZero, positive, type Env } from './parse.ts';

/** How an instance takes part in a fleet of servers sharing one PostgreSQL. */
export type FleetConfig = {
  /** INTERNAL_URL: the address other instances reach this one at (its desktop relay); default http://127.0.0.1:<port>. */
  internalUrl: string | null;
  /**
   * INTERNAL_SECRET: signs every call between instances (at least 32 characters). Unset (''), start.ts puts in the
   * one the deployment keeps in its database before anything is served.
   */
  internalSecret: string;
  /** DESKTOP_HOST=0: a web tier instance, which serves the API and viewers but starts no desktop. */
  desktopHost: boolean;
  /** DESKTOP_LEASE_STALE_SECONDS: a desktop lease not renewed for this long is taken over. */
  leaseStaleSeconds: number;
};

export function fleetConfig(env: Env): FleetConfig {
  // Unset: the instances share one made at the first start and kept in the database (server/db/deployment-secrets.ts).
  const secret = env.INTERNAL_SECRET ?? '';
  if (secret && secret.length < 32) {
    throw new Error('INTERNAL_SECRET must be at least 32 characters (the same on every instance): it signs calls between instances');
  }
  const internalUrl = httpUrl(env, 'INTERNAL_URL')?.replace(/\/+$/, '') ?? null;
  return {
    internalUrl,
    internalSecret: secret,
    desktopHost: oneOrZero(env, 'DESKTOP_HOST') ?? true,
    leaseStaleSeconds: positive(env, 'DESKTOP_LEASE_STALE_SECONDS', 30),
  };
}
