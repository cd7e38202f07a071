// Conditional GETs of JSON answers: a weak ETag from a hash of the body, 304 Not Modified when the
// request's If-None-Match names it. Weak because the same JSON goes out as br, gzip or plain bytes
// (RFC 9110 §8.8.1). A 304 carries only what updates the client's stored copy, so an unchanged poll is
// a few hundred bytes. Leaves out If-Modified-Since: the bodies have no single modification time.
import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Larger answers (a page of 500 steps) are not polled: hashing them would cost every reader ~0.2 ms. */
export const VALIDATE_MAX_BYTES = 128 * 1024;
/** The client keeps the answer but asks each time whether it is still current. */
export const REVALIDATE = 'private, no-cache';

const memo = new WeakMap<object, string>();

/** The weak ETag of a JSON text; `of`, the answer object it came from, keeps it for an answer served again. */
export function etagOf(text: string, of?: object): string {
  const known = of && memo.get(of);
  if (known) return known;
  const etag = `W/"${hash('sha1', text, 'base64url').slice(0, 22)}"`;
  if (of) memo.set(of, etag);
  return etag;
}

/** Whether If-None-Match names `etag` (weak comparison, `*` matches anything). */
export function notModified(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === opaque;
  });
}

/** `headers`: the ones the 200 would have had that concern caches (Vary). The security headers stay off (AppResponse). */
export function sendNotModified(res: ServerResponse, etag: string, headers: Record<string, string | number>): void {
  res.writeHead(304, { ...headers, ETag: etag, 'Cache-Control': REVALIDATE });
  res.end();
}
