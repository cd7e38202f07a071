// Calls between instances carry an HMAC-SHA256 of method, path and an expiry time, keyed with INTERNAL_SECRET,
// in two headers. Nothing else opens an internal route: not a person's bearer token, not a stale or forged
// signature. Leaves out replay protection within the short validity (the relay is idempotent to open twice).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SIGNATURE_HEADER = 'x-internal-signature';
export const EXPIRES_HEADER = 'x-internal-expires';
/** How long a signature is good for; verify refuses one that claims to be good for much longer. */
export const SIGNATURE_TTL_MS = 60_000;

const mac = (secret: string, method: string, path: string, expires: number) =>
  createHmac('sha256', secret).update(`${method.toUpperCase()} ${path} ${expires}`).digest('base64url');

/** The headers that authenticate one call of `method` on `path` (path and query, as sent). */
export function signedHeaders(secret: string, method: string, path: string, now = Date.now()): Record<string, string> {
  const expires = now + SIGNATURE_TTL_MS;
  return { [EXPIRES_HEADER]: String(expires), [SIGNATURE_HEADER]: mac(secret, method, path, expires) };
}

/** Whether the request carries a valid, unexpired signature for its own method and path. */
export function verifySignature(secret: string, req: IncomingMessage, now = Date.now()): boolean {
  const expires = Number(req.headers[EXPIRES_HEADER]);
  const given = req.headers[SIGNATURE_HEADER];
  if (typeof given !== 'string' || !Number.isSafeInteger(expires)) return false;
  if (expires < now || expires > now + 2 * SIGNATURE_TTL_MS) return false;
  const want = Buffer.from(mac(secret, req.method ?? 'GET', req.url ?? '/', expires));
  const got = Buffer.from(given);
  return got.length === want.length && timingSafeEqual(got, want);
}
