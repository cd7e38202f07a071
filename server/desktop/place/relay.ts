// The RFB relay between instances. The holder of an agent's desktop serves /internal/desktops/<id>/rfb: a
// WebSocket whose binary messages are the bytes of a fresh RFB connection to the local Xvnc (it is shared,
// -AlwaysShared). Another instance connects to it with the same RfbClient it uses for a local Xvnc, so the
// relayed desktop is an RfbDesktop like any other; its sound comes from relayed-sound.ts, files it is given go
// to the holder in one signed HTTP POST (internal-call.ts).
import { EventEmitter } from 'node:events';
import { connect as netConnect } from 'node:net';
import { WebSocket } from 'ws';
import { RfbClient, type RfbTransport } from '../rfb/client.ts';
import { RfbDesktop } from '../rfb/desktop.ts';
import type { DesktopSoundSource } from '../types.ts';
import { keepAlive, openInternal, relayPath, sendFile } from './internal-call.ts';
import { connectSound } from './relayed-sound.ts';

/** Largest message one side sends; the receiving WebSocket server takes up to 1 MB. */
const CHUNK = 60 * 1024;
const HIGH_WATER = 4 * 1024 * 1024;

/** Serves one relay socket: pipes it to a new RFB connection of the local desktop, held while open. */
export function serveRelay(ws: WebSocket, desktop: RfbDesktop): void {
  keepAlive(ws);
  const target = desktop.target;
  if (!target) {
    ws.on('error', () => ws.terminate());
    return void ws.close(1011, 'This desktop cannot be relayed');
  }
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
    // Before RfbClient listens (the socket is still opening), openInternal's promise carries the error: an
    // 'error' emitted with no listener would end the process.
    ws.on('error', (err) => this.listenerCount('error') > 0 && this.emit('error', err));
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

/** Another instance's desktop, relayed: its sound (if any) comes from the holder too. */
export type RelayedDesktop = RfbDesktop<DesktopSoundSource>;

/** The agent's desktop on the instance at `address`, relayed; RelayRefused when that instance does not hold it. */
export async function connectRelay(o: RelayOptions): Promise<RelayedDesktop> {
  const timeout = o.timeout ?? 30_000;
  const { ws, opened } = openInternal(o, relayPath(o.agentId), timeout);
  const transport = new WsTransport(ws);
  await opened;
  if (transport.destroyed) throw new Error(`desktop relay to ${o.address}: closed as it opened`);
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

