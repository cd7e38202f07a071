// The deployment's VAPID key pair (RFC 8292): a P-256 key made at the first start and kept sealed in
// deployment_secrets ('vapid'), so every instance of a database signs with the same key (a browser's subscription
// is bound to the public key it was made with). Each push carries an ES256 JWT for the push service's origin,
// made once per origin and used for 12 hours (the RFC allows 24).
import { generateKeyPairSync } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import type { Queryable } from '../db/db.ts';
import { deploymentSecret } from '../db/deployment-secrets.ts';
import type { SecretBox } from '../system/secret-box.ts';

const VALID_HOURS = 12;
/** A JWT is made again this long before it expires: a push service's clock may be ahead of ours. */
const RENEW_BEFORE_MS = 3600_000;

export type Vapid = {
  /** base64url of the uncompressed point: what a browser passes as applicationServerKey. */
  publicKey: string;
  /** The Authorization header for a push to this endpoint: `vapid t=<JWT>, k=<public key>`. */
  authorization(endpoint: URL): Promise<string>;
};

/** `subject`: who runs this server, for a push service to contact (an https URL or mailto:). */
export async function loadVapid(db: Queryable, box: SecretBox, subject: () => string): Promise<Vapid> {
  const { x, y, d } = JSON.parse(await deploymentSecret(db, box, 'vapid', newKeyPair)) as { x: string; y: string; d: string };
  const key = await importJWK({ kty: 'EC', crv: 'P-256', x, y, d }, 'ES256');
  const publicKey = Buffer.concat([Buffer.from([4]), Buffer.from(x, 'base64url'), Buffer.from(y, 'base64url')]).toString('base64url');
  const made = new Map<string, { header: string; renewAt: number }>(); // per push service origin: a handful
  return {
    publicKey,
    async authorization(endpoint) {
      const audience = endpoint.origin;
      const now = Date.now();
      const cached = made.get(audience);
      if (cached && cached.renewAt > now) return cached.header;
      const jwt = await new SignJWT({ sub: subject() })
        .setProtectedHeader({ typ: 'JWT', alg: 'ES256' })
        .setAudience(audience)
        .setExpirationTime(Math.floor(now / 1000) + VALID_HOURS * 3600)
        .sign(key);
      const header = `vapid t=${jwt}, k=${publicKey}`;
      made.set(audience, { header, renewAt: now + VALID_HOURS * 3600_000 - RENEW_BEFORE_MS });
      return header;
    },
  };
}

/** A new key pair as the JWK coordinates (x, y: the public point; d: the private key). */
function newKeyPair(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { x, y, d } = privateKey.export({ format: 'jwk' });
  return JSON.stringify({ x, y, d });
}

/** Who runs this server, for push services (Apple's refuse a JWT without it): PUBLIC_URL when https, else an address. */
export function vapidSubject(publicUrl: string | null, adminEmail: string | null, mailDomain: string): string {
  if (publicUrl?.startsWith('https://')) return publicUrl;
  return `mailto:${adminEmail ?? `postmaster@${mailDomain}`}`;
}
