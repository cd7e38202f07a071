// The server's ServerResponse: every answer gets the request's standing headers (the security headers
// and X-Request-Id) in the same writeHead as its own, as one flat list. Setting them up front with
// setHeader would cost each request ~7 µs: node then validates every header twice and merges the
// answer's headers into its map one by one (scripts/bench-api.mjs). Implicit heads (res.end() without
// writeHead) go through writeHead too, so nothing leaves without them.
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';

/** Flat [name, value, name, value, …]: the form node writes without re-validating into a map. */
export type FlatHeaders = readonly string[];

/** Headers a 304 need not repeat: they came with the stored 200 and are not about caching. */
export const NOT_ON_304 = ['content-security-policy', 'referrer-policy', 'x-frame-options', 'cross-origin-opener-policy', 'x-content-type-options'];

export class AppResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** Added to the answer unless it sets the same header itself (a page under /api brings its own CSP). */
  standing: FlatHeaders = [];

  override writeHead(status: number, reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], given?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
    const message = typeof reason === 'string' ? reason : undefined;
    const own = flat(message === undefined ? (reason as OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined) : given);
    const headers: OutgoingHttpHeader[] = [];
    const standing = this.standing;
    for (let i = 0; i < standing.length; i += 2) {
      const name = standing[i];
      if (status === 304 && NOT_ON_304.includes(name.toLowerCase())) continue;
      if (!this.hasHeader(name) && !named(own, name)) headers.push(name, standing[i + 1]);
    }
    for (const item of own) headers.push(item);
    return message === undefined ? super.writeHead(status, headers) : super.writeHead(status, message, headers);
  }
}

function flat(headers: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined): OutgoingHttpHeader[] {
  if (!headers) return [];
  if (Array.isArray(headers)) return headers;
  const out: OutgoingHttpHeader[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) out.push(name, value as OutgoingHttpHeader);
  }
  return out;
}

function named(headers: OutgoingHttpHeader[], name: string): boolean {
  for (let i = 0; i < headers.length; i += 2) {
    const other = headers[i];
    if (typeof other === 'string' && other.length === name.length && other.toLowerCase() === name.toLowerCase()) return true;
  }
  return false;
}
