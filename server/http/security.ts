// Headers on every response. The page's CSP allows only our own scripts and styles (nothing inline),
// images from data:/blob: (screenshots, guacamole frames) and same-origin sockets. API answers are
// data, never documents: they allow nothing at all, in fewer bytes (a first load makes a dozen of them).
// The built scripts and styles under /assets are never documents either, nor workers: the document's
// policy, framing and opener headers mean nothing to them, and cost ~350 bytes on each of a first load's
// dozen files. nosniff stays on them (it keeps a file from running as another type), and so does the
// referrer policy (a stylesheet's own requests follow it). The one worker, /sw.js (the service worker), is
// outside /assets and so gets the page's policy, which is the worker's own: it may fetch from this origin only.
// Registering it needs nothing more: worker-src falls back to script-src 'self', and a worker at the root
// may control the whole origin without a Service-Worker-Allowed header.
import { extname } from 'node:path';
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

const ASSET_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': PAGE_HEADERS['Referrer-Policy'],
};

/** What an answer is, for its headers: API data, a built script, style, map or image, or a page. */
export type Answer = 'api' | 'asset' | 'page';
const FLAT: Record<Answer, FlatHeaders> = {
  api: Object.entries(API_HEADERS).flat(),
  asset: Object.entries(ASSET_HEADERS).flat(),
  page: Object.entries(PAGE_HEADERS).flat(),
};
/** Not an SVG: opened on its own, an SVG is a document that can run script. */
const ASSET_TYPES = new Set(['.js', '.css', '.map', '.png', '.woff2']);

export function answerKind(path: string): Answer {
  if (path === '/api' || path.startsWith('/api/')) return 'api';
  return path.startsWith('/assets/') && ASSET_TYPES.has(extname(path)) ? 'asset' : 'page';
}

/** What every answer to a request carries (see AppResponse): the security headers and its request id. */
export function standingHeaders(kind: Answer, requestId: string): FlatHeaders {
  return [...FLAT[kind], 'X-Request-Id', requestId];
}
