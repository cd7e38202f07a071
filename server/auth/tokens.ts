// The built-in issuer's ES256 access tokens: one key pair kept in the database (the private half sealed with the
// server's key, server/system/secret-box.ts), verified with jose. No token lives longer than ACCESS_TOKEN_SECONDS,
// whatever its signature says.
import { randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, importJWK, jwtVerify, type CryptoKey, type JWK } from 'jose';
import type { Db } from '../db/db.ts';
import type { SecretBox } from '../system/secret-box.ts';

/** The longest lifetime (exp - iat) of any token the issuer signs, and so of any it accepts. */
export const ACCESS_TOKEN_SECONDS = 15 * 60;
const ALG = 'ES256';
const CLOCK_TOLERANCE = 5;

export type TokenClaims = { sub: string; role: string; email: string; exp: number; sid?: number };

export class TokenIssuer {
  private constructor(
    private kid: string,
    private privateKey: CryptoKey,
    private publicKey: CryptoKey,
    readonly issuer: string,
    readonly audience: string,
  ) {}

  /** Loads the newest signing key, creating one on first start; a key `secrets` did not seal stops the start (SecretsKeyError). */
  static async load(db: Db, secrets: SecretBox, issuer: string, audience: string): Promise<TokenIssuer> {
    let row = await db.one<{ kid: string; private_jwk: string; public_jwk: JWK }>(
      'SELECT kid, private_jwk, public_jwk FROM signing_keys WHERE alg = $1 ORDER BY created_at DESC LIMIT 1', [ALG]);
    if (!row) {
      const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
      const kid = randomUUID();
      const [private_jwk, public_jwk] = [secrets.seal(JSON.stringify(await exportJWK(privateKey)), signingKeyLabel(kid)), await exportJWK(publicKey)];
      // Two instances starting together may both create one; the newest simply wins.
      await db.query('INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk) VALUES ($1, $2, $3, $4)',
        [kid, ALG, private_jwk, JSON.stringify(public_jwk)]);
      row = { kid, private_jwk, public_jwk };
    }
    return new TokenIssuer(
      row.kid,
      (await importJWK(JSON.parse(secrets.open(row.private_jwk, signingKeyLabel(row.kid))) as JWK, ALG)) as CryptoKey,
      (await importJWK(row.public_jwk, ALG)) as CryptoKey,
      issuer,
      audience,
    );
  }

  /** An access token; `sid` names the sign-in session it came from (its sockets end with it). */
  async sign(user: { id: number; role: string; email: string }, sid?: number, seconds = ACCESS_TOKEN_SECONDS): Promise<string> {
    checkLifetime(seconds);
    return new SignJWT({ role: user.role, email: user.email, ...(sid ? { sid } : {}) })
      .setProtectedHeader({ alg: ALG, kid: this.kid, typ: 'JWT' })
      .setSubject(String(user.id))
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
      .sign(this.privateKey);
  }

  /** A short-lived token for another audience (e.g. the realtime hub), with extra claims. */
  async signFor(audience: string, subject: string, claims: Record<string, unknown>, seconds: number): Promise<string> {
    checkLifetime(seconds);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ALG, kid: this.kid, typ: 'JWT' })
      .setSubject(subject)
      .setIssuer(this.issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
      .sign(this.privateKey);
  }

  /**
   * Rejects anything but an unexpired ES256 token from this issuer for this audience, issued (iat) no later than now
   * and living no longer than the issuer ever signs: a signature alone (a leaked or forged key) buys no lasting token.
   */
  async verify(token: string, audience = this.audience): Promise<TokenClaims & Record<string, unknown>> {
    const { payload } = await jwtVerify(token, this.publicKey, {
      issuer: this.issuer,
      audience,
      algorithms: [ALG],
      clockTolerance: CLOCK_TOLERANCE,
      maxTokenAge: ACCESS_TOKEN_SECONDS,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    if (payload.exp! - payload.iat! > ACCESS_TOKEN_SECONDS) throw new Error('the token lives longer than any this issuer signs');
    return payload as unknown as TokenClaims & Record<string, unknown>;
  }
}

/** Where the sealed private JWK of key `kid` lives (a sealed value opens only there). */
export function signingKeyLabel(kid: string): string {
  return `signing_keys.private_jwk:${kid}`;
}

function checkLifetime(seconds: number): void {
  if (seconds > ACCESS_TOKEN_SECONDS) throw new Error(`tokens live ${ACCESS_TOKEN_SECONDS} s at most, not ${seconds}`);
}
