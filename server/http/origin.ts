// The server's own origin, and the checks that keep other sites from using a visitor's browser against it.
// The Host header is the client's to choose, so it counts as ours only when it names this server: a loopback
// name or address, this machine's host name or one of its addresses, with the port it listens on. Behind a
// proxy (or under another name) PUBLIC_URL says what the origin is.
import type { IncomingMessage } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { HttpError } from './errors.ts';

export type OriginConfig = { publicUrl: string | null; port: number };

/** Our origin for this request (http[s]://host[:port]), or null when the Host header is not ours. */
export function ownOrigin(req: IncomingMessage, { publicUrl, port }: OriginConfig): string | null {
  if (publicUrl) return publicUrl;
  const host = req.headers.host;
  return host && namesThisServer(host, port) ? `http://${host}` : null;
}

/** The WebSocket origin (ws[s]://…) for URLs we hand out; the listening address when the Host is not ours. */
export function socketOrigin(req: IncomingMessage, config: OriginConfig): string {
  const origin = ownOrigin(req, config) ?? `http://localhost:${config.port}`;
  return origin.replace(/^http/, 'ws');
}

/**
 * Refuses a browser request from another site: an Origin header, when sent, must be ours (PUBLIC_URL, else
 * the host the browser addressed), and the body must be JSON, which no form or simple request can send
 * across origins without a preflight we never answer.
 */
export function requireSameSiteJson(req: IncomingMessage, publicUrl: string | null): void {
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
    throw new HttpError(415, 'Content-Type must be application/json');
  }
  const origin = req.headers.origin;
  if (origin === undefined) return; // not a browser (curl, scripts): no ambient cookies to abuse
  let host: string | null = null;
  try {
    const url = new URL(origin);
    host = publicUrl ? (url.origin === publicUrl ? url.host : null) : url.host;
  } catch {
    host = null; // "null" (sandboxed frames, file:) or garbage
  }
  if (!host || (!publicUrl && host !== req.headers.host)) throw new HttpError(403, 'Cross-origin requests are not allowed');
}

function namesThisServer(host: string, port: number): boolean {
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return false;
  }
  if (Number(url.port || 80) !== port || url.username || url.pathname !== '/') return false;
  const name = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost') || name === hostname().toLowerCase()) return true;
  return Object.values(networkInterfaces()).some((list) => list?.some((a) => a.address.toLowerCase() === name));
}
