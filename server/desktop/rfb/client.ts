// Our RFB 3.8 client (RFC 6143, also speaking 3.7/3.3 to older servers): security None or VNC
// authentication, 32-bit true colour as [R,G,B,X] bytes copied straight into an RGBA framebuffer,
// CopyRect + Hextile + Raw + DesktopSize, exactly one outstanding incremental update request paced by a
// frame cap, pointer and key events, and the clipboard — TigerVNC's Extended Clipboard (UTF-8) when the
// server has it, Latin-1 ClientCutText/ServerCutText otherwise. Leaves out the zlib encodings (Tight and
// ZRLE keep compression streams across rectangles; Hextile already cuts a menu's bytes ~50×, hextile.ts),
// the Cursor pseudo-encoding (Xvnc paints the cursor into the framebuffer, which is what screenshots want)
// and client-side resizing.
import { createCipheriv } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { connect as netConnect, type Socket } from 'node:net';
import * as zlib from 'node:zlib';
import { Bytes } from './bytes.ts';
import { drawHextile } from './hextile.ts';
import { checkScreenSize, ENCODING, MAX_CUT_TEXT, MAX_PIXELS, MessageCutter, RfbError } from './messages.ts';
import type { RfbOp, ServerMessage, UpdateStep } from './messages.ts';

export { RfbError, type RfbOp } from './messages.ts';

export type RfbTarget = { path: string } | { host: string; port: number };
/**
 * What the client talks over: a TCP or Unix socket, or anything shaped like one (another instance's desktop
 * relayed over a WebSocket, server/desktop/place/relay.ts). Events 'data' (Buffer), 'error', 'close'.
 */
export type RfbTransport = Pick<Socket, 'on' | 'write' | 'destroy' | 'destroyed'>;

export type RfbOptions = {
  /** VNC authentication password (only the first 8 characters count, as in every VNC server). */
  password?: string;
  /** Minimum ms between incremental update requests: the frame cap. @default 66 */
  frameInterval?: number;
  /** How long after input the cap is lifted (see INPUT_ANSWER_MS). */
  answerWindow?: number;
  /** ms allowed for connecting and the handshake. @default 5000 */
  timeout?: number;
  /** The largest screen (width × height) taken from the server; a larger one ends the connection. @default MAX_PIXELS */
  maxPixels?: number;
};

/**
 * How long after input (a key, a click, a move) updates are not held by the frame cap: what answers input often
 * comes as several updates (a click: the pointer's shape, then the menu it opens, ~10 ms later), and the cap
 * held every one after the first for a whole frame interval (a Ctrl+click's xterm menu: 78 ms against noVNC's 23
 * in the desktop bench). The cap is for a screen that keeps changing while nobody acts on it.
 */
export const INPUT_ANSWER_MS = 250;

const CLIP = { text: 1, caps: 1 << 24, request: 1 << 25, peek: 1 << 26, notify: 1 << 27, provide: 1 << 28 };
const CLIENT_CLIPBOARD_LIMIT = 1024 * 1024;
/** The longest desktop name taken in ServerInit. */
const MAX_NAME = 4096;

/**
 * Events: 'update' (ops: RfbOp[]) after each FramebufferUpdate has been applied to `fb`;
 * 'resize' (width, height); 'clipboard' (text); 'bell'; 'close' (error?: Error), once.
 */
export class RfbClient extends EventEmitter {
  width = 0;
  height = 0;
  name = '';
  /** RGBA, 4 bytes per pixel, alpha 255. Replaced (not resized) on DesktopSize. */
  fb: Buffer = Buffer.alloc(0);
  /** The same memory as 32-bit words, one a pixel. */
  private words: Int32Array = new Int32Array(0);
  /** Count of updates applied so far; changes whenever fb does. */
  updates = 0;
  lastUpdateAt = 0;
  closed = false;
  /** True once the server offered TigerVNC's Extended Clipboard (UTF-8 both ways). */
  extendedClipboard = false;

  private bytes = new Bytes();
  /** Set once the handshake is done: from then on the socket's data is cut into messages as it comes. */
  private messages: MessageCutter | null = null;
  private version = 8;
  private frameInterval: number;
  private answerWindow: number;
  /** Until when updates answer input and come uncapped. */
  private answeringUntil = 0;
  private requestTimer: NodeJS.Timeout | null = null;
  private lastRequestAt = 0;
  private requestOutstanding = false;
  /** Whether the request waiting for its timer is incremental (a resize asks for everything again). */
  private requestIncremental = true;
  private clipboardText: string | null = null;
  private serverClipActions = 0;

  private constructor(private socket: RfbTransport, private options: RfbOptions) {
    super();
    this.frameInterval = options.frameInterval ?? 66;
    this.answerWindow = options.answerWindow ?? INPUT_ANSWER_MS;
    socket.on('data', (chunk: Buffer) => {
      this.bytes.push(chunk);
      if (this.messages) this.drain();
    });
    socket.on('error', (err) => this.finish(err));
    socket.on('close', () => this.finish(new RfbError('connection closed by the server')));
  }

  static async connect(target: RfbTarget, options: RfbOptions = {}): Promise<RfbClient> {
    const socket = netConnect(target as any);
    socket.setNoDelay(true);
    return RfbClient.over(socket, options);
  }

  /**
   * As connect, to a Unix socket a server is about to listen on: refused connections are tried again until
   * `timeout`. Xvnc binds its socket before it listens, so on a loaded machine the socket's file is there some
   * milliseconds before anything accepts.
   */
  static async connectWhenListening(path: string, options: RfbOptions = {}): Promise<RfbClient> {
    const deadline = Date.now() + (options.timeout ?? 5000);
    for (;;) {
      try {
        return await RfbClient.connect({ path }, { ...options, timeout: Math.max(1, deadline - Date.now()) });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ECONNREFUSED' || Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  /** The handshake over a transport already open (or opening); it is destroyed when that fails. */
  static async over(socket: RfbTransport, options: RfbOptions = {}): Promise<RfbClient> {
    const client = new RfbClient(socket, options);
    const timeout = options.timeout ?? 5000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.handshake(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new RfbError(`RFB handshake timed out after ${timeout} ms`)), timeout);
        }),
      ]);
    } catch (err) {
      client.finish(err as Error);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    client.messages = new MessageCutter(client.bytes, () => client, client.maxPixels);
    client.drain(); // what came with the handshake's last bytes
    return client;
  }

  private async handshake(): Promise<void> {
    const r = this.bytes;
    const banner = (await r.read(12)).toString('latin1');
    const m = /^RFB (\d{3})\.(\d{3})\n$/.exec(banner);
    if (!m || Number(m[1]) !== 3) throw new RfbError(`not an RFB server (got ${JSON.stringify(banner)})`);
    const minor = Number(m[2]);
    this.version = minor >= 8 ? 8 : minor === 7 ? 7 : 3;
    this.write(Buffer.from(`RFB 003.00${this.version}\n`, 'latin1'));

    let type: number;
    if (this.version >= 7) {
      const n = (await r.read(1))[0];
      if (n === 0) throw new RfbError(`server refused the connection: ${await this.reason()}`);
      const offered = [...(await r.read(n))];
      if (offered.includes(1)) type = 1;
      else if (offered.includes(2) && this.options.password !== undefined) type = 2;
      else if (offered.includes(2)) throw new RfbError('the server wants VNC authentication but no password is configured');
      else throw new RfbError(`no supported security type (server offers ${offered.join(', ')})`);
      this.write(Buffer.from([type]));
    } else {
      type = (await r.read(4)).readUInt32BE(0);
      if (type === 0) throw new RfbError(`server refused the connection: ${await this.reason()}`);
      if (type !== 1 && type !== 2) throw new RfbError(`unsupported security type ${type}`);
      if (type === 2 && this.options.password === undefined) throw new RfbError('the server wants VNC authentication but no password is configured');
    }
    if (type === 2) {
      const challenge = await r.read(16);
      this.write(vncAuthResponse(challenge, this.options.password ?? ''));
    }
    if (this.version === 8 || type === 2) {
      const result = (await r.read(4)).readUInt32BE(0);
      if (result !== 0) {
        const why = this.version === 8 ? await this.reason() : 'authentication failed';
        throw new RfbError(type === 2 ? `VNC authentication failed: ${why}` : `security handshake failed: ${why}`);
      }
    }

    this.write(Buffer.from([1])); // ClientInit: shared, so other viewers of the same server stay connected
    const init = await r.read(24);
    const width = init.readUInt16BE(0);
    const height = init.readUInt16BE(2);
    checkScreenSize(width, height, this.maxPixels); // before waiting for a name of any length it announces
    const nameLength = init.readUInt32BE(20);
    if (nameLength > MAX_NAME) throw new RfbError(`desktop name of ${nameLength} bytes`);
    this.name = (await r.read(nameLength)).toString('utf8');
    this.allocate(width, height);

    // SetPixelFormat: 32 bpp, depth 24, little-endian, true colour, R at bits 0-7, G 8-15, B 16-23, so each
    // pixel arrives as the bytes [R, G, B, X] (the server's native R16/G8/B0 would swap red and blue).
    this.write(Buffer.from([0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0]));
    const encodings = [ENCODING.copyRect, ENCODING.hextile, ENCODING.raw, ENCODING.desktopSize, ENCODING.lastRect, ENCODING.extendedClipboard];
    const set = Buffer.alloc(4 + encodings.length * 4);
    set[0] = 2;
    set.writeUInt16BE(encodings.length, 2);
    encodings.forEach((e, i) => set.writeInt32BE(e, 4 + i * 4));
    this.write(set);
    this.request(false);
  }

  private async reason(): Promise<string> {
    const len = (await this.bytes.read(4)).readUInt32BE(0);
    return (await this.bytes.read(Math.min(len, 4096))).toString('utf8');
  }

  /** Handles every whole message buffered, in order; what is left waits for the rest of its bytes. */
  private drain(): void {
    try {
      for (let m: ServerMessage | null; !this.closed && (m = this.messages!.next()); ) this.handle(m);
    } catch (err) {
      this.finish(err as Error);
    }
  }

  private handle(m: ServerMessage): void {
    if (m.kind === 'update') this.applyUpdate(m.steps);
    else if (m.kind === 'bell') this.emit('bell');
    else if (m.kind === 'cut-text') {
      if (!this.extendedClipboard) this.emit('clipboard', m.latin1.toString('latin1').replace(/\r\n/g, '\n'));
    } else if (m.kind === 'extended-clipboard') this.onExtendedClipboard(m.data);
  }

  /**
   * Applies a whole FramebufferUpdate in one synchronous step, so that anyone looking at `fb` between
   * events (viewers, screenshots) never sees half an update.
   */
  private applyUpdate(steps: UpdateStep[]): void {
    let ops: RfbOp[] = [];
    let resized = false;
    for (const step of steps) {
      if ('size' in step) {
        this.allocate(step.size[0], step.size[1]);
        ops = []; // everything before is void; a full update follows
        resized = true;
        continue;
      }
      const { op } = step;
      if (!op.w || !op.h) continue;
      if (step.hextile) drawHextile(step.hextile, this.words, this.width, op.x, op.y, op.w, op.h);
      else if (op.kind === 'rect') blit(this.fb, this.width, step.raw!, op.x, op.y, op.w, op.h);
      else copyWithin(this.fb, this.width, op.sx, op.sy, op.x, op.y, op.w, op.h);
      ops.push(op);
    }
    this.updates++;
    this.lastUpdateAt = Date.now();
    this.requestOutstanding = false;
    if (resized) this.emit('resize', this.width, this.height);
    if (ops.length) this.emit('update', ops);
    // After the frames the update's listeners send (they flush with process.nextTick): the request wakes
    // Xvnc, which on a busy core can run before this process gets to send them.
    process.nextTick(() => this.schedule(!resized));
  }

  /** TigerVNC's Extended Clipboard: caps, then notify → request → provide in either direction. */
  private onExtendedClipboard(data: Buffer): void {
    const flags = data.readUInt32BE(0);
    const actions = flags & 0xff000000;
    const formats = flags & 0xffff;
    if (actions & CLIP.caps) {
      this.extendedClipboard = true;
      this.serverClipActions = actions;
      const caps = Buffer.alloc(8);
      caps.writeUInt32BE((CLIP.caps | CLIP.request | CLIP.peek | CLIP.notify | CLIP.provide | CLIP.text) >>> 0, 0);
      caps.writeUInt32BE(CLIENT_CLIPBOARD_LIMIT, 4);
      this.writeExtendedClipboard(caps);
    } else if (actions & CLIP.notify) {
      if (formats & CLIP.text && this.serverClipActions & CLIP.request) this.writeExtendedClipboard(clipFlags(CLIP.request, CLIP.text));
    } else if (actions & CLIP.request) {
      if (formats & CLIP.text && this.clipboardText !== null) this.provide(this.clipboardText);
    } else if (actions & CLIP.peek) {
      this.writeExtendedClipboard(clipFlags(CLIP.notify, this.clipboardText !== null ? CLIP.text : 0));
    } else if (actions & CLIP.provide) {
      if (!(formats & CLIP.text)) return;
      // TigerVNC flushes its zlib stream without finishing it; accept that.
      const payload = zlib.inflateSync(data.subarray(4), { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: MAX_CUT_TEXT });
      // Formats come in bit order, each as u32 length + data; text is the lowest bit, so it comes first.
      const len = payload.readUInt32BE(0);
      let text = payload.subarray(4, 4 + len).toString('utf8');
      if (text.endsWith('\0')) text = text.slice(0, -1);
      this.clipboardText = null;
      this.emit('clipboard', text.replace(/\r\n/g, '\n'));
    }
  }

  private provide(text: string): void {
    const bytes = Buffer.from(text.replace(/\r\n|\r|\n/g, '\r\n') + '\0', 'utf8');
    const size = Buffer.alloc(4);
    size.writeUInt32BE(bytes.length);
    const body = zlib.deflateSync(Buffer.concat([size, bytes]));
    this.writeExtendedClipboard(Buffer.concat([clipFlags(CLIP.provide, CLIP.text), body]));
  }

  private writeExtendedClipboard(payload: Buffer): void {
    const head = Buffer.alloc(8);
    head[0] = 6;
    head.writeInt32BE(-payload.length, 4);
    this.write(Buffer.concat([head, payload]));
  }

  // --- requests and input

  private request(incremental: boolean): void {
    this.lastRequestAt = Date.now();
    this.requestOutstanding = true;
    const b = Buffer.alloc(10);
    b[0] = 3;
    b[1] = incremental ? 1 : 0;
    b.writeUInt16BE(this.width, 6);
    b.writeUInt16BE(this.height, 8);
    this.write(b);
  }

  /** Sends the next request once the frame cap allows; the server holds it until something changes. */
  private schedule(incremental: boolean): void {
    if (this.closed || this.requestOutstanding || this.requestTimer) return;
    const now = Date.now();
    const wait = now < this.answeringUntil ? 0 : this.lastRequestAt + this.frameInterval - now;
    if (wait <= 0) return this.request(incremental);
    this.requestTimer = setTimeout(() => this.requestNow(incremental), wait);
    this.requestIncremental = incremental;
  }

  private requestNow(incremental: boolean): void {
    if (this.requestTimer) clearTimeout(this.requestTimer);
    this.requestTimer = null;
    if (!this.closed) this.request(incremental);
  }

  /**
   * Input was just sent: the request waiting for the frame cap goes now, and the next ones too for a while
   * (INPUT_ANSWER_MS), so that the pictures the input causes come as soon as the server has them.
   */
  private answering(): void {
    this.answeringUntil = Date.now() + this.answerWindow;
    if (this.requestTimer) this.requestNow(this.requestIncremental);
  }

  /** True while the server holds our update request: then nothing has changed since the last update. */
  get current(): boolean {
    return this.requestOutstanding;
  }

  /** Changes the frame cap (for example slower while nobody watches). */
  setFrameInterval(ms: number): void {
    this.frameInterval = Math.max(0, ms);
  }

  pointer(x: number, y: number, buttonMask: number): void {
    const b = Buffer.alloc(6);
    b[0] = 5;
    b[1] = buttonMask & 0xff;
    b.writeUInt16BE(clamp(Math.round(x), 0, Math.max(0, this.width - 1)), 2);
    b.writeUInt16BE(clamp(Math.round(y), 0, Math.max(0, this.height - 1)), 4);
    this.write(b);
    this.answering();
  }

  key(keysym: number, down: boolean): void {
    const b = Buffer.alloc(8);
    b[0] = 4;
    b[1] = down ? 1 : 0;
    b.writeUInt32BE(keysym >>> 0, 4);
    this.write(b);
    this.answering();
  }

  /** Offers text as the desktop's clipboard (UTF-8 with Extended Clipboard, else Latin-1). */
  setClipboard(text: string): void {
    if (this.extendedClipboard && this.serverClipActions & CLIP.notify) {
      this.clipboardText = text;
      this.writeExtendedClipboard(clipFlags(CLIP.notify, CLIP.text));
      return;
    }
    const latin1 = Buffer.from(text.replace(/[^\u0000-\u00ff]/gu, '?'), 'latin1');
    const head = Buffer.alloc(8);
    head[0] = 6;
    head.writeUInt32BE(latin1.length, 4);
    this.write(Buffer.concat([head, latin1]));
  }

  close(): void {
    this.finish();
  }

  private write(data: Buffer): void {
    if (!this.closed && !this.socket.destroyed) this.socket.write(data);
  }

  private get maxPixels(): number {
    return this.options.maxPixels ?? MAX_PIXELS;
  }

  private allocate(width: number, height: number): void {
    checkScreenSize(width, height, this.maxPixels);
    this.width = width;
    this.height = height;
    this.fb = Buffer.alloc(width * height * 4, OPAQUE_BLACK);
    this.words = new Int32Array(this.fb.buffer, this.fb.byteOffset, width * height);
  }

  private finish(error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    if (this.requestTimer) clearTimeout(this.requestTimer);
    this.bytes.fail(error ?? new RfbError('closed'));
    this.socket.destroy();
    this.emit('close', error);
  }
}

const OPAQUE_BLACK = Buffer.from([0, 0, 0, 255]);

function clipFlags(action: number, formats: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE((action | formats) >>> 0);
  return b;
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/** Raw pixels [R,G,B,X] into the RGBA framebuffer; X is undefined padding, so alpha is forced to 255. */
function blit(fb: Buffer, width: number, data: Buffer, x: number, y: number, w: number, h: number): void {
  const stride = width * 4;
  const rowBytes = w * 4;
  for (let row = 0; row < h; row++) {
    const off = (y + row) * stride + x * 4;
    data.copy(fb, off, row * rowBytes, (row + 1) * rowBytes);
    for (let p = off + 3; p < off + rowBytes; p += 4) fb[p] = 255;
  }
}

/** CopyRect inside one framebuffer; rows are walked away from the overlap, Buffer.copy handles the rest. */
function copyWithin(fb: Buffer, width: number, sx: number, sy: number, dx: number, dy: number, w: number, h: number): void {
  const stride = width * 4;
  const bytes = w * 4;
  if (sy < dy) {
    for (let row = h - 1; row >= 0; row--) fb.copy(fb, (dy + row) * stride + dx * 4, (sy + row) * stride + sx * 4, (sy + row) * stride + sx * 4 + bytes);
  } else {
    for (let row = 0; row < h; row++) fb.copy(fb, (dy + row) * stride + dx * 4, (sy + row) * stride + sx * 4, (sy + row) * stride + sx * 4 + bytes);
  }
}

function reverseBits(b: number): number {
  let r = 0;
  for (let i = 0; i < 8; i++) r |= ((b >> i) & 1) << (7 - i);
  return r;
}

function desKey(password: Buffer): Buffer {
  const key = Buffer.alloc(8);
  password.copy(key, 0, 0, 8);
  return key;
}

// OpenSSL 3 refuses 'des-ecb' without the legacy provider; 3DES-EDE with K1 = K2 = K3 is single DES.
function des(key8: Buffer, block: Buffer): Buffer {
  const cipher = createCipheriv('des-ede3-ecb', Buffer.concat([key8, key8, key8]), null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(block), cipher.final()]);
}

/** VNC authentication: DES of the challenge, keyed by the password with every byte's bits reversed. */
export function vncAuthResponse(challenge: Buffer, password: string): Buffer {
  const key = desKey(Buffer.from(password, 'latin1')).map(reverseBits) as Buffer;
  return des(Buffer.from(key), challenge);
}

/** The 8 bytes of a TigerVNC -PasswordFile (what `vncpasswd` writes), without needing tigervnc-tools. */
export function vncPasswordFile(password: string): Buffer {
  // The fixed key {23,82,107,6,35,78,88,7} with its bits reversed, as d3des expects.
  const fixed = Buffer.from([0xe8, 0x4a, 0xd6, 0x60, 0xc4, 0x72, 0x1a, 0xe0]);
  return des(fixed, desKey(Buffer.from(password, 'latin1')));
}
