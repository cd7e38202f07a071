// The OpenID Connect settings (issue 49): the provider, this client's credentials, and what its claims decide.
// Unset OIDC_ISSUER: no single sign-on (and no other OIDC_* may be set). Checked here once: the start stops
// with a line naming the variable; whether the issuer answers is only known later (server/sso logs it).
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { list, refuse, type Env } from './parse.ts';

export type OidcConfig = {
  /** OIDC_ISSUER: the provider's issuer URL (https; http only on a loopback host, for tests and development). */
  issuer: string;
  /** OIDC_CLIENT_ID */
  clientId: string;
  /** OIDC_CLIENT_SECRET: client_secret_basic; null with a private key. */
  clientSecret: string | null;
  /** OIDC_PRIVATE_KEY: private_key_jwt with this key (PKCS#8 PEM or a private JWK, inline or a file's path). */
  privateKey: { pem: string; alg: string; kid?: string } | null;
  /** OIDC_SCOPES (default `openid email profile`); always with `openid`. */
  scopes: string;
  /** OIDC_NAME: the sign-in button's text. */
  name: string;
  /** OIDC_ADMIN_GROUPS: members of any of these are admins, the others not (checked at every sign-in); empty: roles stay. */
  adminGroups: string[];
  /** OIDC_GROUPS_CLAIM (default `groups`): the claim that lists the user's groups. */
  groupsClaim: string;
  /** OIDC_ALLOWED_DOMAINS: e-mail domains that may sign in (lower case); empty: any. */
  allowedDomains: string[];
};

const NAMES = ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_PRIVATE_KEY', 'OIDC_SCOPES', 'OIDC_NAME', 'OIDC_ADMIN_GROUPS',
  'OIDC_GROUPS_CLAIM', 'OIDC_ALLOWED_DOMAINS'];
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function loadOidcConfig(env: Env): OidcConfig | null {
  const issuer = env.OIDC_ISSUER?.trim();
  if (!issuer) {
    const stray = NAMES.find((name) => env[name]);
    if (stray) throw new Error(`${stray} is set but OIDC_ISSUER is not: set the provider's issuer URL too, or unset ${stray}`);
    return null;
  }
  if (!URL.canParse(issuer)) throw refuse('OIDC_ISSUER', issuer, "the provider's issuer URL (https://…)");
  const url = new URL(issuer);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    throw refuse('OIDC_ISSUER', issuer, 'an https URL (http only on localhost)');
  }
  if (url.search || url.hash) throw refuse('OIDC_ISSUER', issuer, 'an issuer URL without a query or fragment');
  const clientId = env.OIDC_CLIENT_ID?.trim();
  if (!clientId) throw new Error('OIDC_ISSUER is set but OIDC_CLIENT_ID is not: set the client id the provider gave this server');
  const clientSecret = env.OIDC_CLIENT_SECRET || null;
  const privateKey = env.OIDC_PRIVATE_KEY ? signingKey(env.OIDC_PRIVATE_KEY) : null;
  if (!clientSecret === !privateKey) {
    throw new Error('OIDC_ISSUER needs one client credential: OIDC_CLIENT_SECRET (client_secret_basic) or OIDC_PRIVATE_KEY (private_key_jwt)');
  }
  const scopes = (env.OIDC_SCOPES?.trim() || 'openid email profile').split(/\s+/);
  if (!scopes.includes('openid')) throw refuse('OIDC_SCOPES', env.OIDC_SCOPES, 'a space-separated list of scopes with openid');
  return {
    issuer,
    clientId,
    clientSecret,
    privateKey,
    scopes: scopes.join(' '),
    name: env.OIDC_NAME?.trim() || 'Sign in with single sign-on',
    adminGroups: list(env, 'OIDC_ADMIN_GROUPS'),
    groupsClaim: env.OIDC_GROUPS_CLAIM?.trim() || 'groups',
    allowedDomains: list(env, 'OIDC_ALLOWED_DOMAINS').map((d) => d.toLowerCase().replace(/^@/, '')),
  };
}

/** The private key of private_key_jwt, its algorithm from its kind (RSA: RS256, P-256: ES256, P-384: ES384, Ed25519: EdDSA). */
function signingKey(value: string): { pem: string; alg: string; kid?: string } {
  const inline = value.trim().startsWith('-----BEGIN') || value.trim().startsWith('{');
  if (!inline && !existsSync(value)) throw refuse('OIDC_PRIVATE_KEY', '…', 'a PKCS#8 PEM or a private JWK, or the path of a file with one');
  const text = inline ? value.trim() : readFileSync(value, 'utf8').trim();
  let key: KeyObject;
  let kid: string | undefined;
  try {
    if (text.startsWith('{')) {
      const jwk = JSON.parse(text);
      kid = typeof jwk.kid === 'string' ? jwk.kid : undefined;
      key = createPrivateKey({ key: jwk, format: 'jwk' });
    } else {
      key = createPrivateKey(text);
    }
  } catch {
    // The value is a secret: never printed.
    throw new Error('OIDC_PRIVATE_KEY must be a private key (PKCS#8 PEM or a private JWK): this one could not be read');
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const alg = key.asymmetricKeyType === 'rsa' ? 'RS256'
    : key.asymmetricKeyType === 'ed25519' ? 'EdDSA'
      : curve === 'prime256v1' ? 'ES256' : curve === 'secp384r1' ? 'ES384' : null;
  if (!alg) throw new Error('OIDC_PRIVATE_KEY must be an RSA, P-256, P-384 or Ed25519 key');
  return { pem: key.export({ type: 'pkcs8', format: 'pem' }).toString(), alg, ...(kid ? { kid } : {}) };
}
