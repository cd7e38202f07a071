// Calls between instances carry an HMAC-SHA256, keyed with INTERNAL_SECRET, of the method, the target instance
// (its INTERNAL_URL), the path, an expiry, a nonce and the SHA-256 of the body. Nothing else opens an internal
// route: not a person's bearer token, not a stale, forged or replayed signature, not another body.
// A body whose hash is not known when the call starts (one streamed on as it arrives) is signed as `streamed`;
// its hash then comes after it, in a trailer signed the same way. Either way the receiver hashes what it reads
// and refuses the body at its end (BodyCheck, raw-body.ts) before anything uses it.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { BodyCheck } from '../../files/raw-body.ts';
import { HttpError } from '../../http/errors.ts';

export const SIGNATURE_HEADER = 'x-internal-signature';
export const EXPIRES_HEADER = 'x-internal-expires';
export const NONCE_HEADER = 'x-internal-nonce';
export const BODY_HASH_HEADER = 'x-internal-body-sha256';
/** The trailer of a streamed body: the signature again, over the body's hash this time. */
export const BODY_SIGNATURE_TRAILER = 'x-internal-body-signature';
/** BODY_HASH_HEADER of a body whose hash follows it (BODY_SIGNATURE_TRAILER). */
export const STREAMED = 'streamed';
/** How long a signature is good for; verify refuses one that claims to be good for much longer. */
export const SIGNATURE_TTL_MS = 60_000;
export const EMPTY_BODY = createHash('sha256').digest('hex');

/** One call: `to` is the INTERNAL_URL of the instance called, `path` its path and query as sent. */
export type InternalRequest = { method: string; to: string; path: string };
type Signed = { expires: number; nonce: string };

const mac = (secret: string, r: InternalRequest, s: Signed, body: string) =>
  createHmac('sha256', secret).update([r.method.toUpperCase(), r.to, r.path, s.expires, s.nonce, body].join('\n')).digest('base64url');

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The headers that authenticate one call. `body`: the SHA-256 (hex) of the body, EMPTY_BODY without one,
 * or STREAMED (then send bodyTrailer() after the body).
 */
export function signedHeaders(secret: string, r: InternalRequest, body = EMPTY_BODY, now = Date.now()): Record<string, string> {
  const s = { expires: now + SIGNATURE_TTL_MS, nonce: randomBytes(16).toString('base64url') };
  return {
    [EXPIRES_HEADER]: String(s.expires), [NONCE_HEADER]: s.nonce, [BODY_HASH_HEADER]: body, [SIGNATURE_HEADER]: mac(secret, r, s, body),
  };
}

/** The trailer that follows a STREAMED body whose SHA-256 (hex) is `hash`; `headers`: the call's signedHeaders. */
export function bodyTrailer(secret: string, r: InternalRequest, headers: Record<string, string>, hash: string): Record<string, string> {
  const s = { expires: Number(headers[EXPIRES_HEADER]), nonce: headers[NONCE_HEADER] };
  return { [BODY_SIGNATURE_TRAILER]: mac(secret, r, s, hash) };
}

/**
 * Nonces of the signatures this instance accepted, until they expire. One set per process is enough: a
 * signature names the instance it is for (its INTERNAL_URL), so a replay is only valid on the instance that
 * saw it first. A restart forgets them: a call captured within the last minute may then be replayed once.
 */
export class SeenNonces {
  private seen = new Map<string, number>();

  /** Whether `nonce` is new (it is then remembered until `expires`). */
  first(nonce: string, expires: number, now: number): boolean {
    // Expiries come in nearly in order: the oldest are at the front.
    for (const [old, until] of this.seen) {
      if (until >= now) break;
      this.seen.delete(old);
    }
    if (this.seen.has(nonce)) return false;
    this.seen.set(nonce, expires);
    return true;
  }
}

const SEEN = new SeenNonces();

/**
 * Whether the request carries a valid, unexpired signature, not seen before, for its own method and path on
 * the instance `to` (this one's INTERNAL_URL). Gives the check its body must pass while it is read; null: refused.
 */
export function verifySignature(secret: string, req: IncomingMessage, to: string, now = Date.now(), seen = SEEN): BodyCheck | null {
  const expires = Number(req.headers[EXPIRES_HEADER]);
  const [given, nonce, body] = [SIGNATURE_HEADER, NONCE_HEADER, BODY_HASH_HEADER].map((h) => req.headers[h]);
  if (typeof given !== 'string' || typeof nonce !== 'string' || typeof body !== 'string' || !Number.isSafeInteger(expires)) return null;
  if (!to || expires < now || expires > now + 2 * SIGNATURE_TTL_MS) return null;
  if (body !== STREAMED && !/^[0-9a-f]{64}$/.test(body)) return null;
  const r = { method: req.method ?? 'GET', to, path: req.url ?? '/' };
  const s = { expires, nonce };
  if (!same(given, mac(secret, r, s, body)) || !seen.first(nonce, expires, now)) return null;
  const hash = createHash('sha256');
  return {
    update: (chunk) => void hash.update(chunk),
    end: (trailers) => {
      const got = hash.digest('hex');
      const signed = body === STREAMED ? same(String(trailers[BODY_SIGNATURE_TRAILER] ?? ''), mac(secret, r, s, got)) : got === body;
      if (!signed) throw new HttpError(401, 'The body is not the one signed');
    },
  };
}
