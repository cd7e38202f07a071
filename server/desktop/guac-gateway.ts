// The Guacamole protocol gateway: one WebSocket tunnel per viewer (guacamole-common-js's WebSocketTunnel),
// fed from the desktop's shared framebuffer. Per viewer:
// - first `0.,36.<uuid>;` (the tunnel opens and learns its uuid), then name, size, a full frame, sync;
// - afterwards frames of coalesced dirty rectangles as PNG (img + ≤8064-char blobs + end, mask 14 = OVER;
//   12 = SRC would blank the canvas) and CopyRect as copy (mask 14), each frame closed by sync;
// - flow control: the next frame waits for the viewer's sync ack; meanwhile changes only grow the viewer's
//   dirty region, so a slow viewer gets fewer, coalesced frames instead of a queue;
// - the tunnel's internal ping is echoed (without it the client drops after 15 s), `nop` after 5 s of
//   silence keeps the client's own keep-alive going;
// - clipboard both ways as UTF-8 blobs (the client library's string helpers mangle non-BMP text);
// - the desktop's sound, when it has any, as one raw PCM `audio` stream per viewer; audio that would wait
//   behind a backlog is dropped (late sound is worthless), and a viewer that refuses the type gets none;
// - mouse, keys and clipboard are taken only from the viewer holding control: enforced here; the
//   controller's mouse and keys are also emitted as 'input' (agentId, DesktopInput) for recordings.
import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { HttpError } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { bmpOnly, encode, GuacParser, GuacProtocolError, type Instruction } from './guac-codec.ts';
import { DesktopUnavailable } from './none-provider.ts';
import { encodePngAsync } from './png.ts';
import { coalesce } from './rects.ts';
import type { Copy } from './rfb-desktop.ts';
import type { Desktop, DesktopInput, DesktopManager, Rect } from './types.ts';

/** The tunnel's WebSocket path; the ticket is in the path because the client appends '?' + its data. */
export const TUNNEL_PATH = /^\/api\/desktop\/tunnel\/([A-Za-z0-9_-]{16,128})\/?$/;
export const tunnelUrl = (ticket: string) => `/api/desktop/tunnel/${ticket}`;

/** Guacamole status codes used here (guacamole-common-js Status.Code). */
export const STATUS = {
  SERVER_ERROR: 0x0200,
  UPSTREAM_UNAVAILABLE: 0x0208,
  CLIENT_BAD_REQUEST: 0x0300,
  CLIENT_FORBIDDEN: 0x0303,
};

export type GatewayOptions = {
  /** Minimum ms between frames to one viewer. @default 66 (≈15 fps) */
  frameInterval?: number;
  /** Send `nop` after this many ms without an instruction. @default 5000 */
  nopInterval?: number;
  /** Hold frames while the socket has more than this many bytes unsent. @default 1 MiB */
  maxBuffered?: number;
  /** Blob size in base64 characters (guacd's 6048-byte limit). @default 8064 */
  blobChars?: number;
  /** Ticket lifetime in ms. @default 60 s */
  ticketTtl?: number;
};

export type ActionEvent = { kind: string; x: number; y: number; source: 'user' | 'agent'; button?: string; direction?: string };

type Ticket = { userId: number; agentId: number; sessionId: string; name: string; expires: number };

const MAX_CLIPBOARD = 1024 * 1024;
/** Outside the 1..1000 cycle of image and clipboard streams, so it stays open beside them. */
export const AUDIO_STREAM = 1001;
const MOVE_EVENT_MS = 100;
const KEY_EVENT_MS = 250;

export class GuacGateway extends EventEmitter<{ input: [agentId: number, input: DesktopInput] }> {
  private tickets = new Map<string, Ticket>();
  private sessions = new Map<Desktop, DesktopSession>();
  readonly options: Required<GatewayOptions>;

  constructor(
    private manager: Pick<DesktopManager, 'acquire'>,
    readonly publish: (topic: string, payload: unknown) => void,
    readonly log: (msg: string) => void,
    options: GatewayOptions = {},
  ) {
    super();
    this.options = {
      frameInterval: options.frameInterval ?? 66,
      nopInterval: options.nopInterval ?? 5000,
      maxBuffered: options.maxBuffered ?? 1024 * 1024,
      blobChars: options.blobChars ?? 8064,
      ticketTtl: options.ticketTtl ?? 60_000,
    };
  }

  /** A short-lived, single-use ticket for one tunnel of this user to this agent's desktop. */
  issueTicket(userId: number, agentId: number, name: string): { ticket: string; sessionId: string } {
    const now = Date.now();
    for (const [key, t] of this.tickets) if (t.expires < now) this.tickets.delete(key);
    const ticket = randomBytes(24).toString('base64url');
    const sessionId = randomUUID();
    this.tickets.set(ticket, { userId, agentId, sessionId, name, expires: now + this.options.ticketTtl });
    return { ticket, sessionId };
  }

  /** Checks and spends the ticket, makes sure the desktop runs, and returns how to serve the socket. */
  async open(ticket: string): Promise<(ws: WebSocket) => void> {
    const t = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (!t || t.expires < Date.now()) throw new HttpError(403, 'Invalid or expired desktop ticket');
    let desktop: Desktop;
    try {
      desktop = await this.manager.acquire(t.agentId);
    } catch (err) {
      if (err instanceof DesktopUnavailable) throw new HttpError(503, err.message);
      throw err;
    }
    return (ws) => {
      let session = this.sessions.get(desktop);
      if (!session) {
        session = new DesktopSession(this, desktop, () => this.sessions.delete(desktop));
        this.sessions.set(desktop, session);
      }
      session.add(new Viewer(session, ws, t));
    };
  }

  private session(agentId: number): DesktopSession | null {
    for (const s of this.sessions.values()) if (s.desktop.agentId === agentId && !s.disposed) return s;
    return null;
  }

  /**
   * Gives control of the agent's desktop to one viewer (take) or gives it up. Only a connected viewer of
   * the same user can hold control; taking it from another viewer leaves that one read-only.
   */
  setControl(agentId: number, sessionId: string, userId: number, take: boolean): { session_id: string; control: boolean } {
    const session = this.session(agentId);
    const viewer = session && [...session.viewers].find((v) => v.id === sessionId);
    if (!session || !viewer || viewer.userId !== userId) throw new HttpError(404, 'Viewer session not found');
    if (take) session.setController(viewer);
    else if (session.controller === viewer) session.setController(null);
    return { session_id: sessionId, control: session.controller === viewer };
  }

  /** Connected viewers and who holds control, for the status endpoint. */
  describe(agentId: number): { viewers: number; control: string | null } {
    const s = this.session(agentId);
    return { viewers: s?.viewers.size ?? 0, control: s?.controller?.id ?? null };
  }
}

/** The viewers of one running desktop, sharing its framebuffer, PNG encodes and control. */
class DesktopSession {
  readonly viewers = new Set<Viewer>();
  controller: Viewer | null = null;
  disposed = false;
  /** Counts framebuffer changes; encodes are shared between viewers for the same version. */
  version = 0;
  private pngs = new Map<string, Promise<string>>();
  private release: (() => void) | null = null;
  private off: () => void;

  constructor(readonly gateway: GuacGateway, readonly desktop: Desktop, private onDispose: () => void) {
    const onUpdate = (rects: Rect[], copies: Copy[]) => {
      this.changed();
      for (const v of this.viewers) v.note(rects, copies);
    };
    const onResize = () => {
      this.changed();
      for (const v of this.viewers) v.resized();
    };
    const onClipboard = (text: string) => {
      for (const v of this.viewers) v.sendClipboard(text);
    };
    const onClosed = () => {
      for (const v of [...this.viewers]) v.fail(STATUS.UPSTREAM_UNAVAILABLE, 'The desktop stopped', 1011);
      this.dispose();
    };
    desktop.on('update', onUpdate);
    desktop.on('resize', onResize);
    desktop.on('clipboard', onClipboard);
    desktop.on('closed', onClosed);
    const sound = desktop.sound;
    const offSound = sound?.listen((chunk) => {
      for (const v of this.viewers) v.sendAudio(sound.mimetype, chunk);
    });
    this.off = () => {
      offSound?.();
      desktop.off('update', onUpdate);
      desktop.off('resize', onResize);
      desktop.off('clipboard', onClipboard);
      desktop.off('closed', onClosed);
    };
    this.release = desktop.hold?.() ?? null;
  }

  private changed(): void {
    this.version++;
    this.pngs.clear();
  }

  /** Base64 PNG of a rectangle of the current framebuffer; the pixels are copied before this returns. */
  png(rect: Rect): Promise<string> {
    const key = `${rect.x},${rect.y},${rect.w},${rect.h}`;
    let p = this.pngs.get(key);
    if (!p) {
      p = encodePngAsync(this.desktop.framebuffer(), rect).then((b) => b.toString('base64'));
      this.pngs.set(key, p);
      p.catch(() => this.pngs.delete(key));
    }
    return p;
  }

  add(viewer: Viewer): void {
    this.viewers.add(viewer);
    viewer.start();
  }

  remove(viewer: Viewer): void {
    this.viewers.delete(viewer);
    if (this.controller === viewer) this.setController(null);
    if (this.viewers.size === 0) this.dispose();
  }

  setController(viewer: Viewer | null): void {
    const previous = this.controller;
    if (previous === viewer) return;
    this.controller = viewer;
    previous?.controlChanged(false);
    viewer?.controlChanged(true);
  }

  private dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.off();
    this.release?.();
    this.onDispose();
  }
}

class Viewer {
  readonly id: string;
  readonly userId: number;
  private parser = new GuacParser();
  private dirty: Rect[] = [];
  private copies: Copy[] = [];
  private needsSize = true;
  private awaiting: string | null = null;
  private flushing = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private keepAlive: NodeJS.Timeout;
  private lastFrameAt = 0;
  private lastSentAt = Date.now();
  private stream = 0;
  private clipboardIn = new Map<string, { chunks: Buffer[]; size: number }>();
  private mask = 0;
  private lastMoveEvent = 0;
  private lastKeyEvent = 0;
  private lastAck = 0;
  private lastTs = 0;
  private audio: 'none' | 'open' | 'refused' = 'none';

  constructor(private session: DesktopSession, private ws: WebSocket, private ticket: Ticket) {
    this.id = ticket.sessionId;
    this.userId = ticket.userId;
    ws.on('message', (data, isBinary) => this.onMessage(isBinary ? null : data.toString()));
    ws.on('close', () => this.dispose());
    ws.on('error', () => this.dispose());
    this.keepAlive = setInterval(() => {
      if (Date.now() - this.lastSentAt >= this.gateway.options.nopInterval) this.send(encode('nop'));
    }, 1000);
    this.keepAlive.unref();
  }

  private get gateway(): GuacGateway {
    return this.session.gateway;
  }

  private get desktop(): Desktop {
    return this.session.desktop;
  }

  start(): void {
    // The tunnel opens on the first instruction it gets; the internal opcode with one argument also
    // hands it its uuid.
    this.sendRaw(encode('', this.id));
    this.send(encode('name', bmpOnly(this.ticket.name)));
    this.resized();
  }

  resized(): void {
    this.needsSize = true;
    this.copies = [];
    this.dirty = [{ x: 0, y: 0, w: this.desktop.width, h: this.desktop.height }];
    this.schedule(0);
  }

  /**
   * Records an update. Copies are replayable only while nothing is pending before them: once pixels are
   * dirty, the viewer's canvas no longer matches the copy's source, so the destination becomes dirty too.
   */
  note(rects: Rect[], copies: Copy[]): void {
    for (const c of copies) {
      if (this.dirty.length === 0) this.copies.push(c);
      else this.dirty.push({ x: c.dx, y: c.dy, w: c.src.w, h: c.src.h });
    }
    this.dirty.push(...rects);
    if (this.dirty.length > 256) this.dirty = coalesce(this.dirty, { maxRects: 32 });
    this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delay);
  }

  private async flush(): Promise<void> {
    if (this.closed || this.flushing || this.awaiting !== null) return;
    if (!this.needsSize && !this.copies.length && !this.dirty.length) return;
    if (this.ws.bufferedAmount > this.gateway.options.maxBuffered) return this.schedule(50);
    const wait = this.lastFrameAt + this.gateway.options.frameInterval - Date.now();
    if (wait > 0) return this.schedule(wait);

    this.flushing = true;
    const { width, height } = this.desktop;
    let head = this.needsSize ? encode('size', 0, width, height) : '';
    const copies = this.copies;
    const rects = coalesce(this.dirty).filter((r) => r.x + r.w <= width && r.y + r.h <= height);
    this.copies = [];
    this.dirty = [];
    this.needsSize = false;
    // Start every encode now: each copies its pixels synchronously, so the frame is one consistent moment.
    const pngs = rects.map((r) => this.session.png(r));
    let images: string[];
    try {
      images = await Promise.all(pngs);
    } catch (err) {
      this.gateway.log(`desktop ${this.desktop.agentId}: frame encode failed: ${(err as Error).message}`);
      this.flushing = false;
      this.resized();
      return;
    }
    if (this.closed) return;
    for (const c of copies) head += encode('copy', 0, c.src.x, c.src.y, c.src.w, c.src.h, 14, 0, c.dx, c.dy);
    const parts = [head];
    const chunk = this.gateway.options.blobChars;
    rects.forEach((r, i) => {
      const stream = this.nextStream();
      parts.push(encode('img', stream, 14, 0, 'image/png', r.x, r.y));
      const data = images[i];
      for (let at = 0; at < data.length; at += chunk) parts.push(encode('blob', stream, data.slice(at, at + chunk)));
      parts.push(encode('end', stream));
    });
    // Strictly increasing, so an ack always names the frame it belongs to.
    const ts = Math.max(Date.now(), this.lastTs + 1);
    this.lastTs = ts;
    parts.push(encode('sync', ts));
    this.awaiting = String(ts);
    this.lastFrameAt = Date.now();
    this.flushing = false;
    this.send(parts.join(''));
  }

  private nextStream(): number {
    this.stream = (this.stream % 1000) + 1;
    return this.stream;
  }

  sendClipboard(text: string): void {
    const stream = this.nextStream();
    const data = Buffer.from(text, 'utf8').toString('base64');
    const chunk = this.gateway.options.blobChars;
    let out = encode('clipboard', stream, 'text/plain');
    for (let at = 0; at < data.length; at += chunk) out += encode('blob', stream, data.slice(at, at + chunk));
    this.send(out + encode('end', stream));
  }

  /** Raw PCM for the viewer's audio stream, opened with the first chunk. */
  sendAudio(mimetype: string, pcm: Buffer): void {
    if (this.closed || this.audio === 'refused') return;
    if (this.ws.bufferedAmount > this.gateway.options.maxBuffered / 4) return;
    let out = '';
    if (this.audio === 'none') {
      out = encode('audio', AUDIO_STREAM, mimetype);
      this.audio = 'open';
    }
    // The player decodes each blob on its own: 16 base64 characters are 12 bytes, whole frames of any
    // raw PCM layout (1–2 bytes × 1–2 channels).
    const data = pcm.toString('base64');
    const chunk = Math.max(16, this.gateway.options.blobChars - (this.gateway.options.blobChars % 16));
    for (let at = 0; at < data.length; at += chunk) out += encode('blob', AUDIO_STREAM, data.slice(at, at + chunk));
    this.send(out);
  }

  /** Tells the viewer's page that it gained or lost control (a custom opcode the library ignores). */
  controlChanged(control: boolean): void {
    this.send(encode('x-control', control ? 1 : 0));
  }

  private onMessage(text: string | null): void {
    if (this.closed) return;
    if (text === null) return this.fail(STATUS.CLIENT_BAD_REQUEST, 'Binary frames are not part of the protocol');
    let instructions: Instruction[];
    try {
      instructions = this.parser.feed(text);
    } catch (err) {
      if (err instanceof GuacProtocolError) return this.fail(STATUS.CLIENT_BAD_REQUEST, `Malformed instruction: ${err.message}`);
      throw err;
    }
    try {
      for (const ins of instructions) {
        if (this.closed) return;
        this.handle(ins);
      }
    } catch (err) {
      if (err instanceof GuacProtocolError) return this.fail(STATUS.CLIENT_BAD_REQUEST, err.message);
      throw err;
    }
  }

  private handle({ opcode, args }: Instruction): void {
    switch (opcode) {
      case '':
        if (args[0] === 'ping') this.sendRaw(encode('', 'ping', args[1] ?? ''));
        return;
      case 'sync':
        if (args[0] === this.awaiting) {
          this.awaiting = null;
          this.lastAck = Date.now();
          this.schedule(0);
        }
        return;
      case 'mouse':
        return this.onMouse(int(args[0]), int(args[1]), int(args[2]));
      case 'key':
        return this.onKey(int(args[0]), args[1]);
      case 'clipboard':
        if (this.hasControl() && /^text\//.test(args[1] ?? '')) this.clipboardIn.set(args[0], { chunks: [], size: 0 });
        return;
      case 'blob': {
        const stream = this.clipboardIn.get(args[0]);
        if (!stream) return;
        const bytes = Buffer.from(args[1] ?? '', 'base64');
        stream.size += bytes.length;
        if (stream.size > MAX_CLIPBOARD) {
          this.clipboardIn.delete(args[0]);
          this.send(encode('ack', args[0], 'Clipboard too large', 0x030d));
          return;
        }
        stream.chunks.push(bytes);
        this.send(encode('ack', args[0], 'OK', 0));
        return;
      }
      case 'end': {
        const stream = this.clipboardIn.get(args[0]);
        this.clipboardIn.delete(args[0]);
        if (stream && this.hasControl()) void this.desktop.setClipboard(Buffer.concat(stream.chunks).toString('utf8'));
        return;
      }
      case 'ack':
        // The client answers `audio` with OK, or with an error status when it cannot play the type.
        if (args[0] === String(AUDIO_STREAM) && Number(args[2]) >= 0x0100) this.audio = 'refused';
        return;
      case 'disconnect':
        this.closed = true;
        this.ws.close(1000);
        this.dispose();
        return;
      default:
        return; // nop, ack, size, and anything else: nothing to do
    }
  }

  private hasControl(): boolean {
    return this.session.controller === this;
  }

  private onMouse(x: number, y: number, mask: number): void {
    if (!this.hasControl()) return;
    const { width, height } = this.desktop;
    const pressed = mask & ~this.mask;
    const moved = !this.desktop.cursor || this.desktop.cursor().x !== x || this.desktop.cursor().y !== y;
    this.mask = mask;
    this.desktop.pointer(x, y, mask);
    this.gateway.emit('input', this.desktop.agentId, { kind: 'mouse', x, y, mask, at: Date.now(), userId: this.userId });
    const fx = frac(x, width);
    const fy = frac(y, height);
    const now = Date.now();
    if (pressed & 7) {
      const button = pressed & 1 ? 'left' : pressed & 4 ? 'right' : 'middle';
      this.action({ kind: 'click', x: fx, y: fy, source: 'user', button });
    } else if (pressed & 24) {
      this.action({ kind: 'scroll', x: fx, y: fy, source: 'user', direction: pressed & 8 ? 'up' : 'down' });
    } else if (moved && now - this.lastMoveEvent >= MOVE_EVENT_MS) {
      this.lastMoveEvent = now;
      this.action({ kind: 'move', x: fx, y: fy, source: 'user' });
    }
  }

  private onKey(keysym: number, pressed: string | undefined): void {
    if (!this.hasControl()) return;
    const down = pressed === '1' || pressed === 'true';
    if (!down && pressed !== '0' && pressed !== 'false') throw new GuacProtocolError('key: pressed must be 1 or 0');
    this.desktop.key(keysym, down);
    const now = Date.now();
    this.gateway.emit('input', this.desktop.agentId, { kind: 'key', keysym, down, at: now, userId: this.userId });
    if (down && now - this.lastKeyEvent >= KEY_EVENT_MS) {
      this.lastKeyEvent = now;
      const c = this.desktop.cursor?.() ?? { x: 0, y: 0 };
      this.action({ kind: 'key', x: frac(c.x, this.desktop.width), y: frac(c.y, this.desktop.height), source: 'user' });
    }
  }

  private action(event: ActionEvent): void {
    this.gateway.publish(`agent:${this.desktop.agentId}:actions`, event);
  }

  /** Sends an instruction the client's Guacamole.Client sees (counts for the keep-alive). */
  private send(data: string): void {
    this.lastSentAt = Date.now();
    this.sendRaw(data);
  }

  private sendRaw(data: string): void {
    if (!this.closed && this.ws.readyState === this.ws.OPEN) this.ws.send(data);
  }

  /** Ends the tunnel with a Guacamole error the client can show; the reason carries the status code. */
  fail(status: number, message: string, closeCode = 1008): void {
    if (this.closed) return;
    this.send(encode('error', bmpOnly(message).slice(0, 200), status));
    this.closed = true;
    this.ws.close(closeCode, String(status));
    this.dispose();
  }

  private disposed = false;

  private dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    clearInterval(this.keepAlive);
    if (this.mask && this.hasControl()) this.desktop.pointer(this.desktop.cursor?.().x ?? 0, this.desktop.cursor?.().y ?? 0, 0);
    this.session.remove(this);
  }
}

function int(value: string | undefined): number {
  if (value === undefined || !/^-?\d{1,10}$/.test(value)) throw new GuacProtocolError(`expected an integer, got ${JSON.stringify(value?.slice(0, 20))}`);
  return Number(value);
}

/** A pixel position as a fraction of the screen (0 = first pixel, 1 = last), as performAction reports it. */
function frac(v: number, size: number): number {
  const f = size > 1 ? v / (size - 1) : 0;
  return f < 0 ? 0 : f > 1 ? 1 : f;
}

// One gateway per server (per services object), created on first use.
const gateways = new WeakMap<Services, GuacGateway>();

export function gatewayFor(services: Services): GuacGateway {
  let gw = gateways.get(services);
  if (!gw) {
    // Looked up per tunnel, not captured: tests swap services.desktops for their own manager.
    gw = new GuacGateway({ acquire: (agentId) => services.desktops.acquire(agentId) }, (topic, payload) => services.bus.publish(topic, payload), services.log.error);
    gateways.set(services, gw);
  }
  return gw;
}

/** The tunnel branch of the socket server: authenticates by ticket before the upgrade completes. */
export function desktopTunnel(services: Services, ticket: string): Promise<(ws: WebSocket) => void> {
  return gatewayFor(services).open(ticket);
}
