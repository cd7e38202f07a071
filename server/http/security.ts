// Headers on every response. The page's CSP allows only our own scripts and styles (nothing inline),
// images from data:/blob: (screenshots, guacamole frames) and same-origin sockets. API answers are
// data, never documents: they allow nothing at all, in fewer bytes (a first load makes a dozen of them).
import type { FlatHeaders } from './response.ts';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** For answers under /api: nothing may load, nothing may frame them (OWASP's REST headers). */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** A document's headers: also for the few pages written under /api (the test-mode billing portal). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

const API_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': API_CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const API_FLAT = Object.entries(API_HEADERS).flat();
const PAGE_FLAT = Object.entries(PAGE_HEADERS).flat();

/** What every answer to a request carries (see AppResponse): the security headers and its request id. */
export function standingHeaders(api: boolean, requestId: string): FlatHeaders {
  return [...(api ? API_FLAT : PAGE_FLAT), 'X-Request-Id', requestId];
}
