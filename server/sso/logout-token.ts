// Back-channel logout tokens, checked as OpenID Connect Back-Channel Logout 1.0 §2.6 says, with jose: the signature
// against the provider's JWKS (refetched on an unknown kid at most once a minute), an algorithm the provider
// announced and never `none` or HS*, iss, aud (this client), iat (within the skew, not older than MAX_AGE), jti,
// the back-channel logout event, sub or sid, and no nonce (so an ID token is never taken for one).
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { ASYMMETRIC, CLOCK_SKEW_SECONDS } from './relying-party.ts';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const MAX_AGE = '10m';
const TYPES = [undefined, 'JWT', 'logout+jwt'];

export type LogoutClaims = { sub: string | null; sid: string | null; jti: string; exp: number };
export type LogoutKeys = { issuer: string; jwksUri: string; algorithms: string[]; clientId: string };

/** The JWKS of one provider, kept for logout tokens (jose caches it and limits refetches). */
const sets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

export async function verifyLogoutToken(token: string, keys: LogoutKeys): Promise<LogoutClaims> {
  let jwks = sets.get(keys.jwksUri);
  if (!jwks) sets.set(keys.jwksUri, (jwks = createRemoteJWKSet(new URL(keys.jwksUri), { cooldownDuration: 60_000, timeoutDuration: 10_000 })));
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, jwks, {
      issuer: keys.issuer,
      audience: keys.clientId,
      algorithms: keys.algorithms.filter((alg) => ASYMMETRIC.test(alg)),
      clockTolerance: CLOCK_SKEW_SECONDS,
      maxTokenAge: MAX_AGE,
      requiredClaims: ['iat', 'jti', 'events'],
    }).then((verified) => {
      if (!TYPES.includes(verified.protectedHeader.typ)) throw new Error(`typ ${verified.protectedHeader.typ} is not a logout token's`);
      return verified;
    }));
  } catch (err) {
    throw new Error(err instanceof errors.JOSEError ? `${err.code}: ${err.message}` : (err as Error).message);
  }
  if (payload.iat! > Math.floor(Date.now() / 1000) + CLOCK_SKEW_SECONDS) throw new Error('issued in the future (iat)');
  const events = payload.events as Record<string, unknown> | undefined;
  if (!events || typeof events !== 'object' || typeof events[EVENT] !== 'object' || events[EVENT] === null) {
    throw new Error('no back-channel logout event in "events"');
  }
  if (payload.nonce !== undefined) throw new Error('a logout token carries no nonce');
  const sub = typeof payload.sub === 'string' ? payload.sub : null;
  const sid = typeof payload.sid === 'string' ? payload.sid : null;
  if (!sub && !sid) throw new Error('neither sub nor sid');
  if (typeof payload.jti !== 'string' || !payload.jti) throw new Error('no jti');
  // A token without exp is kept against replays as long as it may be accepted at all.
  return { sub, sid, jti: payload.jti, exp: payload.exp ?? payload.iat! + 600 };
}
