// The RFB relay between instances. The holder of an agent's desktop serves /internal/desktops/<id>/rfb: a
// WebSocket whose binary messages are the bytes of a fresh RFB connection to the local Xvnc (it is shared,
// -AlwaysShared). Another instance connects to it with the same RfbClient it uses for a local Xvnc, so the
// relayed desktop is an RfbDesktop like any other. Files go to the holder in one signed HTTP POST. The sound
// has a socket of its own (/internal/desktops/<id>/sound): its mimetype first, then PCM while anyone listens.
import { createReadStream } from 'node:fs';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { EventEmitter } from 'node:events';
import { connect as netConnect } from 'node:net';
import type { Readable } from 'node:stream';
import { WebSocket } from 'ws';
import { RfbClient, type RfbTransport } from '../rfb/client.ts';
import { RfbDesktop } from '../rfb/desktop.ts';
import type { DesktopSoundSource } from '../types.ts';
import { signedHeaders } from './signature.ts';

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

/** Largest message one side sends; the receiving WebSocket server takes up to 1 MB. */
const CHUNK = 60 * 1024;
const HIGH_WATER = 4 * 1024 * 1024;

/** How often each side of a relay pings the other; a side silent for two intervals is dropped. */
const KEEPALIVE_MS = 15_000;

/** Pings the peer; terminates the socket when no pong came since the last ping (a peer gone without a word). */
function keepAlive(ws: WebSocket, everyMs = KEEPALIVE_MS): void {
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

/** Serves one relay socket: pipes it to a new RFB connection of the local desktop, held while open. */
export function serveRelay(ws: WebSocket, desktop: RfbDesktop): void {
  keepAlive(ws);
  const target = desktop.target;
  if (!target) return void ws.close(1011, 'This desktop cannot be relayed');
  const sock = netConnect(target as never);
  sock.setNoDelay(true);
  const release = desktop.hold();
  let paused = false;
  const end = () => {
    release();
    desktop.off('closed', end);
    sock.destroy();
    if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000);
  };
  const drained = () => {
    if (paused && ws.bufferedAmount < HIGH_WATER / 4) {
      paused = false;
      sock.resume();
    }
  };
  sock.on('data', (chunk: Buffer) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(chunk, { binary: true }, drained);
    if (ws.bufferedAmount > HIGH_WATER && !paused) {
      paused = true;
      sock.pause();
    }
  });
  ws.on('message', (data: Buffer) => {
    desktop.touch(); // input from another instance keeps the desktop from idling, as local input does
    sock.write(data);
  });
  sock.on('error', end);
  sock.on('close', end);
  ws.on('close', end);
  ws.on('error', end);
  desktop.on('closed', end);
}

/**
 * A WebSocket with the shape of a socket, for RfbClient. Made before the socket opens: the holder's first bytes
 * (the RFB banner) may come in the same packet as the upgrade's answer, and are kept until a 'data' listener comes.
 */
class WsTransport extends EventEmitter {
  destroyed = false;
  private early: Buffer[] | null = [];

  constructor(private ws: WebSocket) {
    super();
    keepAlive(ws);
    ws.on('message', (data: Buffer) => (this.early ? this.early.push(data) : this.emit('data', data)));
    ws.on('error', (err) => this.emit('error', err));
    ws.on('close', () => {
      this.destroyed = true;
      this.emit('close');
    });
  }

  override on(event: string | symbol, listener: (...args: any[]) => void): this {
    super.on(event, listener);
    if (event === 'data' && this.early) {
      const early = this.early;
      this.early = null;
      for (const chunk of early) this.emit('data', chunk);
    }
    return this;
  }

  write(data: Buffer): boolean {
    for (let i = 0; i < data.length; i += CHUNK) this.ws.send(data.subarray(i, i + CHUNK), { binary: true });
    return true;
  }

  destroy(): this {
    if (!this.destroyed) this.ws.close(1000);
    this.destroyed = true;
    return this;
  }
}

export type RelayOptions = {
  agentId: number;
  /** The holder's INTERNAL_URL. */
  address: string;
  secret: string;
  frameInterval?: { watched: number; unwatched: number };
  /** ms for connecting (the holder may be starting the desktop), the handshake and the first full picture. @default 30000 */
  timeout?: number;
};

/** The agent's desktop on the instance at `address`, relayed; RelayRefused when that instance does not hold it. */
export type RelayedDesktop = RfbDesktop<DesktopSoundSource>;

export async function connectRelay(o: RelayOptions): Promise<RelayedDesktop> {
  const timeout = o.timeout ?? 30_000;
  const { ws, opened } = openInternal(o, relayPath(o.agentId), timeout);
  const transport = new WsTransport(ws);
  await opened;
  const rfb = await RfbClient.over(transport as unknown as RfbTransport, { timeout });
  // The first full picture, so that a screenshot taken at once is not black.
  const deadline = Date.now() + timeout;
  while (rfb.updates === 0 && !rfb.closed) {
    if (Date.now() > deadline) {
      rfb.close();
      throw new Error(`desktop relay to ${o.address}: no picture within ${timeout} ms`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const sound = await connectSound(o).catch(() => null);
  rfb.once('close', () => sound?.close());
  return new RfbDesktop<DesktopSoundSource>(o.agentId, rfb, {
    frameInterval: o.frameInterval,
    relayedFrom: o.address,
    putFile: (source, name) => sendFile(o, source, name),
    sound,
  });
}

/** Opens a signed WebSocket to `path` on the holder; rejects with its status on refusal. */
function openInternal(o: RelayOptions, path: string, timeout: number): { ws: WebSocket; opened: Promise<void> } {
  const ws = new WebSocket(o.address.replace(/^http/, 'ws') + path, {
    headers: signedHeaders(o.secret, 'GET', path), perMessageDeflate: false, handshakeTimeout: timeout, maxPayload: 256 * 1024 * 1024,
  });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', (err) => reject(err));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () => {
        const detail = safeDetail(body) ?? `HTTP ${res.statusCode}`;
        reject(res.statusCode === 409 ? new RelayRefused(409, detail) : new Error(`desktop relay to ${o.address}: ${detail}`));
      });
      ws.terminate();
    });
  });
  return { ws, opened };
}

/** The holder's desktop sound, relayed; null when its desktop has none. Capture runs there only while someone listens here. */
async function connectSound(o: RelayOptions): Promise<(DesktopSoundSource & { close(): void }) | null> {
  const { ws, opened } = openInternal(o, soundPath(o.agentId), 5000);
  const listeners = new Set<(chunk: Buffer) => void>();
  let mimetype: string | null = null;
  const first = new Promise<string | null>((resolve, reject) => {
    ws.once('message', (data: Buffer, binary: boolean) => (binary ? reject(new Error('sound: no mimetype')) : resolve(JSON.parse(String(data)).mimetype)));
    ws.once('close', () => resolve(null));
    setTimeout(() => resolve(null), 5000).unref();
  });
  await opened;
  mimetype = await first;
  if (!mimetype) {
    ws.close();
    return null;
  }
  keepAlive(ws);
  ws.on('message', (data: Buffer, binary: boolean) => {
    if (binary) for (const listener of listeners) listener(data);
  });
  const send = (text: string) => ws.readyState === WebSocket.OPEN && ws.send(text);
  return {
    mimetype,
    listen(onChunk) {
      listeners.add(onChunk);
      if (listeners.size === 1) send('on');
      return () => {
        if (listeners.delete(onChunk) && listeners.size === 0) send('off');
      };
    },
    close: () => ws.close(),
  };
}

/** Serves one sound socket: the mimetype (null without sound), then PCM while the other side says 'on'. */
export function serveSound(ws: WebSocket, desktop: RfbDesktop): void {
  const sound = desktop.sound;
  ws.send(JSON.stringify({ mimetype: sound?.mimetype ?? null }));
  if (!sound) return void ws.close(1000);
  keepAlive(ws);
  let off: (() => void) | null = null;
  const stop = () => {
    off?.();
    off = null;
  };
  ws.on('message', (data: Buffer) => {
    const text = String(data);
    if (text === 'on' && !off) {
      // Late sound is worthless: a chunk waiting behind a backlog is dropped.
      off = sound.listen((chunk) => ws.bufferedAmount < 256 * 1024 && ws.send(chunk, { binary: true }));
    } else if (text === 'off') stop();
  });
  const end = () => {
    stop();
    desktop.off('closed', end);
    if (ws.readyState === WebSocket.OPEN) ws.close(1000);
  };
  ws.on('close', end);
  desktop.on('closed', end);
}

/** POSTs a file to the holder's desktop; resolves with its path there. */
export function sendFile(o: Pick<RelayOptions, 'agentId' | 'address' | 'secret'>, source: string, name: string): Promise<string> {
  return internalCall(o, 'POST', filesPath(o.agentId, name), source).then((body) => String((body as { path: string }).path));
}

/** A signed call to another instance; `source` (a file, or a stream) is the body. Throws on any status but 2xx. */
export function internalCall(
  o: { address: string; secret: string }, method: string, path: string, source?: string | Readable, headers: Record<string, string> = {},
): Promise<unknown> {
  const url = new URL(o.address + path);
  const send = url.protocol === 'https:' ? httpsRequest : request;
  return new Promise((resolve, reject) => {
    const all = { 'Content-Type': 'application/octet-stream', ...headers, ...signedHeaders(o.secret, method, path) };
    const req = send(url, { method, headers: all }, (res) => {
      let body = '';
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
    body.pipe(req);
  });
}

function safeDetail(body: string): string | null {
  try {
    const detail = JSON.parse(body)?.detail;
    return typeof detail === 'string' ? detail : null;
  } catch {
    return null;
  }
}
