// The built-in issuer's ES256 access tokens: one key pair kept in the database, verified with jose.
import { randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, importJWK, jwtVerify, type CryptoKey, type JWK } from 'jose';
import type { Db } from '../db/db.ts';

export const ACCESS_TOKEN_SECONDS = 15 * 60;
const ALG = 'ES256';

export type TokenClaims = { sub: string; role: string; email: string; exp: number; sid?: number };

export class TokenIssuer {
  private constructor(
    private kid: string,
    private privateKey: CryptoKey,
    private publicKey: CryptoKey,
    readonly issuer: string,
    readonly audience: string,
  ) {}

  /** Loads the newest signing key, creating one on first start. */
  static async load(db: Db, issuer: string, audience: string): Promise<TokenIssuer> {
    let row = await db.one<{ kid: string; private_jwk: JWK; public_jwk: JWK }>(
      'SELECT kid, private_jwk, public_jwk FROM signing_keys WHERE alg = $1 ORDER BY created_at DESC LIMIT 1', [ALG]);
    if (!row) {
      const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
      const kid = randomUUID();
      const [private_jwk, public_jwk] = [await exportJWK(privateKey), await exportJWK(publicKey)];
      // Two instances starting together may both create one; the newest simply wins.
      await db.query('INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk) VALUES ($1, $2, $3, $4)',
        [kid, ALG, JSON.stringify(private_jwk), JSON.stringify(public_jwk)]);
      row = { kid, private_jwk, public_jwk };
    }
    return new TokenIssuer(
      row.kid,
      (await importJWK(row.private_jwk, ALG)) as CryptoKey,
      (await importJWK(row.public_jwk, ALG)) as CryptoKey,
      issuer,
      audience,
    );
  }

  /** An access token; `sid` names the sign-in session it came from (its sockets end with it). */
  sign(user: { id: number; role: string; email: string }, sid?: number, seconds = ACCESS_TOKEN_SECONDS): Promise<string> {
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
  signFor(audience: string, subject: string, claims: Record<string, unknown>, seconds: number): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ALG, kid: this.kid, typ: 'JWT' })
      .setSubject(subject)
      .setIssuer(this.issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
      .sign(this.privateKey);
  }

  /** Rejects anything but an unexpired ES256 token from this issuer for this audience. */
  async verify(token: string, audience = this.audience): Promise<TokenClaims & Record<string, unknown>> {
    const { payload } = await jwtVerify(token, this.publicKey, {
      issuer: this.issuer,
      audience,
      algorithms: [ALG],
      clockTolerance: 5,
      requiredClaims: ['sub', 'exp'],
    });
    return payload as unknown as TokenClaims & Record<string, unknown>;
  }
}
