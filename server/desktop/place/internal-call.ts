// Calls between instances of a fleet: their paths, a signed WebSocket or HTTP call to another instance
// (signature.ts), keep-alive pings, and the errors an instance answers with. relay.ts and relayed-sound.ts
// build on it; fleet-desktops.ts and the recordings use internalCall.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { WebSocket } from 'ws';
import { BODY_SIGNATURE_TRAILER, bodyTrailer, EMPTY_BODY, signedHeaders, STREAMED } from './signature.ts';

/** Another instance: its INTERNAL_URL, and the deployment's INTERNAL_SECRET. */
export type Peer = { address: string; secret: string };

export const relayPath = (agentId: number) => `/internal/desktops/${agentId}/rfb`;
export const soundPath = (agentId: number) => `/internal/desktops/${agentId}/sound`;
export const filesPath = (agentId: number, name: string) => `/internal/desktops/${agentId}/files?name=${encodeURIComponent(name)}`;
export const desktopPath = (agentId: number) => `/internal/desktops/${agentId}`;

/** The holder answered that it does not hold the desktop (any more): look at the lease again. */
export class RelayRefused extends Error {
  override name = 'RelayRefused';
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Another instance answered an internal call with an error status. */
export class InternalCallFailed extends Error {
  override name = 'InternalCallFailed';
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** How often each side of a relay pings the other; a side silent for two intervals is dropped. */
const KEEPALIVE_MS = 15_000;

/** Pings the peer; terminates the socket when no pong came since the last ping (a peer gone without a word). */
export function keepAlive(ws: WebSocket, everyMs = KEEPALIVE_MS): void {
  let alive = true;
  ws.on('pong', () => (alive = true));
  const timer = setInterval(() => {
    if (!alive) return void ws.terminate();
    alive = false;
    ws.ping();
  }, everyMs);
  timer.unref();
  ws.once('close', () => clearInterval(timer));
}

/**
 * Opens a signed WebSocket to `path` on the holder; rejects with its status on refusal, or with why it could not
 * be reached. The socket keeps an 'error' listener for good: an error of a relay is its viewers', never the process's.
 */
export function openInternal(o: Peer, path: string, timeout: number): { ws: WebSocket; opened: Promise<void> } {
  const ws = new WebSocket(o.address.replace(/^http/, 'ws') + path, {
    headers: signedHeaders(o.secret, { method: 'GET', to: o.address, path }),
    perMessageDeflate: false, handshakeTimeout: timeout, maxPayload: 256 * 1024 * 1024,
  });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    // Once settled, a later error only ends the socket ('close' follows): its owner listens for that.
    ws.on('error', (err) => reject(new Error(`desktop relay to ${o.address}: ${err.message}`, { cause: err })));
    ws.once('unexpected-response', (_req, res) => {
      // The refusal is read to its end (or until cut off) before the socket goes: its detail says why.
      let body = '';
      res.on('error', () => {});
      res.on('data', (d: Buffer) => (body += d));
      res.on('close', () => {
        const detail = safeDetail(body) ?? `HTTP ${res.statusCode}`;
        reject(res.statusCode === 409 ? new RelayRefused(409, detail) : new Error(`desktop relay to ${o.address}: ${detail}`));
        ws.terminate();
      });
    });
  });
  return { ws, opened };
}

/** POSTs a file to the holder's desktop; resolves with its path there. */
export function sendFile(o: Peer & { agentId: number }, source: string, name: string): Promise<string> {
  return internalCall(o, 'POST', filesPath(o.agentId, name), source).then((body) => String((body as { path: string }).path));
}

/** A signed call to another instance; `source` (a file, or a stream) is the body. Throws on any status but 2xx. */
export function internalCall(
  o: Peer, method: string, path: string, source?: string | Readable, headers: Record<string, string> = {},
): Promise<unknown> {
  const url = new URL(o.address + path);
  const send = url.protocol === 'https:' ? httpsRequest : request;
  const call = { method, to: o.address, path };
  // A file is hashed before it is sent; a stream is hashed as it goes, its hash signed in a trailer.
  const hashed = typeof source === 'string' ? hashFile(source) : Promise.resolve(source ? STREAMED : EMPTY_BODY);
  return hashed.then((hash) => new Promise((resolve, reject) => {
    const signed = signedHeaders(o.secret, call, hash);
    const trailer = hash === STREAMED ? { Trailer: BODY_SIGNATURE_TRAILER } : {};
    const all = { 'Content-Type': 'application/octet-stream', ...headers, ...trailer, ...signed };
    const req = send(url, { method, headers: all }, (res) => {
      let body = '';
      res.on('error', reject);
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        if (res.statusCode && res.statusCode < 300) resolve(body ? JSON.parse(body) : null);
        else reject(new InternalCallFailed(res.statusCode ?? 502, `${method} ${url.origin}${path}: ${safeDetail(body) ?? `HTTP ${res.statusCode}`}`));
      });
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${url.origin}${path}: timed out`)));
    req.on('error', reject);
    if (!source) return void req.end();
    const body = typeof source === 'string' ? createReadStream(source) : source;
    body.on('error', (err: Error) => req.destroy(err));
    if (hash !== STREAMED) return void body.pipe(req);
    const sum = createHash('sha256');
    body.on('data', (chunk: Buffer) => sum.update(chunk));
    body.once('end', () => {
      req.addTrailers(bodyTrailer(o.secret, call, signed, sum.digest('hex')));
      req.end();
    });
    body.pipe(req, { end: false });
  }));
}

/**
 * A signed GET to another instance whose answer is streamed back as it comes (a recording): resolves with the
 * response, whatever its status, once its head arrived.
 */
export function internalGet(o: Peer, path: string, headers: Record<string, string> = {}): Promise<IncomingMessage> {
  const url = new URL(o.address + path);
  const send = url.protocol === 'https:' ? httpsRequest : request;
  return new Promise((resolve, reject) => {
    const signed = signedHeaders(o.secret, { method: 'GET', to: o.address, path }, EMPTY_BODY);
    const req = send(url, { method: 'GET', headers: { ...headers, ...signed } }, resolve);
    req.setTimeout(60_000, () => req.destroy(new Error(`GET ${url.origin}${path}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

async function hashFile(path: string): Promise<string> {
  const sum = createHash('sha256');
  await pipeline(createReadStream(path), sum);
  return sum.digest('hex');
}

function safeDetail(body: string): string | null {
  try {
    const detail = JSON.parse(body)?.detail;
    return typeof detail === 'string' ? detail : null;
  } catch {
    return null;
  }
}
