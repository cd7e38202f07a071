// The few X11 requests the server asks of a desktop's X server itself (windows.ts), spoken over the display's
// Unix socket: the connection setup with the MIT-MAGIC-COOKIE-1 the server wrote, then InternAtom, GetProperty,
// QueryTree, GetGeometry and GetWindowAttributes. No Xlib, no child process; no events are selected.
// Everything the X server answers is the desktop's to shape (window names and properties are its programs'),
// so a reply is size-capped, every request is timed, and nothing malformed throws out of a socket callback:
// a reply is handed over as bytes and read by the caller's own await (https://www.x.org/releases/X11R7.7/doc/xproto/x11protocol.html).
import { connect, type Socket } from 'node:net';

export type X11Options = {
  /** The display's socket: one the agent cannot replace (Sandbox.keepSocket). */
  path: string;
  /** The MIT-MAGIC-COOKIE-1 of the display (16 bytes). */
  cookie: Buffer;
  /** How long the setup or a request's reply may take before the connection is dropped. @default 3000 */
  timeoutMs?: number;
  /** The largest reply taken; a larger one drops the connection. @default 1 MB */
  maxReply?: number;
};

export type X11Setup = { root: number; width: number; height: number; idBase: number; idMask: number };

export class X11Error extends Error {
  override name = 'X11Error';
}

const DEFAULTS = { timeoutMs: 3000, maxReply: 1024 * 1024 };
/** Replies outstanding at once: far below the 16-bit sequence numbers that match them to their requests. */
const MAX_PENDING = 30_000;

/** Predefined atoms (X11 protocol, appendix B). */
export const ATOM = { WINDOW: 33, WM_NAME: 39, WM_CLASS: 67 } as const;
/** GetProperty's AnyPropertyType. */
export const ANY_TYPE = 0;
/** Map states of GetWindowAttributes. */
export const VIEWABLE = 2;

type Pending = { resolve: (reply: Buffer | null) => void; reject: (err: Error) => void; at: number };

/** One connection to an X server: many requests may be outstanding, each reply comes to its own. */
export class X11Connection {
  closed = false;
  private chunks: Buffer[] = [];
  private have = 0;
  private seq = 0;
  private pending = new Map<number, Pending>();
  private timer: NodeJS.Timeout | null = null;
  private corked = false;
  private options: Required<Omit<X11Options, 'path' | 'cookie'>>;

  private constructor(private socket: Socket, readonly setup: X11Setup, options: X11Options) {
    this.options = { ...DEFAULTS, ...options };
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
  }

  /** Connects and authenticates; rejects with the server's reason, on a timeout, or on anything malformed. */
  static open(options: X11Options): Promise<X11Connection> {
    const { timeoutMs, maxReply } = { ...DEFAULTS, ...options };
    return new Promise((resolve, reject) => {
      const socket = connect({ path: options.path });
      let received = Buffer.alloc(0);
      const fail = (err: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(err);
      };
      const timer = setTimeout(() => fail(new X11Error(`no X setup reply within ${timeoutMs} ms`)), timeoutMs);
      socket.on('error', (err) => fail(new X11Error(`X connection failed: ${err.message}`, { cause: err })));
      socket.on('close', () => fail(new X11Error('X connection closed during setup')));
      const onData = (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        if (received.length < 8) return;
        const size = 8 + 4 * received.readUInt16LE(6);
        if (size > maxReply) return fail(new X11Error(`X setup reply of ${size} bytes`));
        if (received.length < size) return;
        socket.off('data', onData);
        socket.removeAllListeners('close');
        clearTimeout(timer);
        try {
          const conn = new X11Connection(socket, parseSetup(received.subarray(0, size)), options);
          socket.on('close', () => conn.drop(new X11Error('X connection closed')));
          if (received.length > size) conn.receive(received.subarray(size));
          resolve(conn);
        } catch (err) {
          fail(err as Error);
        }
      };
      socket.on('data', onData);
      socket.write(setupRequest(options.cookie));
    });
  }

  /** Sends a request that has a reply: the reply's bytes, null for an X error (a window gone), a rejection once the connection is. */
  ask(request: Buffer): Promise<Buffer | null> {
    if (this.closed) return Promise.reject(new X11Error('X connection closed'));
    if (this.pending.size >= MAX_PENDING) return Promise.reject(new X11Error('too many X requests outstanding'));
    return new Promise((resolve, reject) => {
      this.pending.set(this.write(request), { resolve, reject, at: Date.now() });
      this.timer ??= setTimeout(() => this.expire(), this.options.timeoutMs);
    });
  }

  /** Sends a request without a reply (its X error, if any, is ignored). */
  send(request: Buffer): void {
    if (!this.closed) this.write(request);
  }

  close(): void {
    this.drop(new X11Error('X connection closed'));
  }

  /** Writes one request; those of one tick leave in one write. Returns its sequence number. */
  private write(request: Buffer): number {
    this.seq = (this.seq + 1) & 0xffff;
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.socket.write(request);
    return this.seq;
  }

  /** Bytes from the server: every whole packet (a reply, an error, an event) goes to its request. */
  private receive(chunk: Buffer): void {
    if (this.closed) return;
    this.chunks.push(chunk);
    this.have += chunk.length;
    while (this.have >= 32) {
      if (this.chunks[0].length < 32) this.chunks = [Buffer.concat(this.chunks)];
      const size = packetSize(this.chunks[0]);
      if (size > this.options.maxReply) return this.drop(new X11Error(`X reply of ${size} bytes`));
      if (this.have < size) return;
      if (this.chunks[0].length < size) this.chunks = [Buffer.concat(this.chunks)];
      const packet = this.chunks[0].subarray(0, size);
      if (this.chunks[0].length === size) this.chunks.shift();
      else this.chunks[0] = this.chunks[0].subarray(size);
      this.have -= size;
      this.dispatch(packet);
    }
  }

  private dispatch(packet: Buffer): void {
    if (packet[0] > 1) return; // an event: none is selected, but the server may send some (Expose of a root)
    const seq = packet.readUInt16LE(2);
    const waiting = this.pending.get(seq);
    if (!waiting) return; // the error of a request sent without a reply
    this.pending.delete(seq);
    waiting.resolve(packet[0] === 1 ? packet : null);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const oldest = this.pending.values().next().value;
    if (oldest) this.timer = setTimeout(() => this.expire(), Math.max(0, oldest.at + this.options.timeoutMs - Date.now()));
  }

  private expire(): void {
    this.timer = null;
    this.drop(new X11Error(`no X reply within ${this.options.timeoutMs} ms`));
  }

  /** Ends the connection and rejects every request still waiting. */
  private drop(err: Error): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket.destroy();
    this.chunks = [];
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting) w.reject(err);
  }
}

/** A whole packet's size from its first 32 bytes: a reply says its length, an error or an event is 32. */
export function packetSize(head: Buffer): number {
  // 35: GenericEvent, which has a length like a reply (the XGE extension; never selected here).
  return head[0] === 1 || (head[0] & 0x7f) === 35 ? 32 + 4 * head.readUInt32LE(4) : 32;
}

const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4)]);

/** The client's setup: little-endian ('l'), protocol 11.0, the cookie. */
export function setupRequest(cookie: Buffer): Buffer {
  const name = Buffer.from('MIT-MAGIC-COOKIE-1');
  const head = Buffer.alloc(12);
  head.write('l', 0, 'latin1');
  head.writeUInt16LE(11, 2);
  head.writeUInt16LE(name.length, 6);
  head.writeUInt16LE(cookie.length, 8);
  return Buffer.concat([head, pad(name), pad(cookie)]);
}

/** The server's setup reply: its first screen and the client's resource ids, or the reason it refused. */
export function parseSetup(reply: Buffer): X11Setup {
  if (reply[0] !== 1) {
    const reason = reply[0] === 0 ? reply.subarray(8, 8 + reply[1]).toString('latin1') : 'further authentication asked';
    throw new X11Error(`X server refused the connection: ${reason.replace(/[^\x20-\x7e]/g, '?').trim()}`);
  }
  const vendor = reply.readUInt16LE(24);
  const screen = 40 + vendor + ((4 - (vendor % 4)) % 4) + 8 * reply[29];
  if (reply[28] < 1 || screen + 40 > reply.length) throw new X11Error('X setup reply without a screen');
  return {
    idBase: reply.readUInt32LE(12), idMask: reply.readUInt32LE(16),
    root: reply.readUInt32LE(screen), width: reply.readUInt16LE(screen + 20), height: reply.readUInt16LE(screen + 22),
  };
}

/** A request: opcode, its one data byte, then the body padded to 4 bytes, its length in 4-byte units. */
export function encodeRequest(opcode: number, data: number, body: Buffer): Buffer {
  const padded = pad(body);
  const head = Buffer.alloc(4);
  head[0] = opcode;
  head[1] = data;
  head.writeUInt16LE(1 + padded.length / 4, 2);
  return Buffer.concat([head, padded]);
}

const words = (...values: number[]) => {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32LE(v >>> 0, 4 * i));
  return b;
};

export const getWindowAttributes = (window: number) => encodeRequest(3, 0, words(window));
export const getGeometry = (window: number) => encodeRequest(14, 0, words(window));
export const queryTree = (window: number) => encodeRequest(15, 0, words(window));
export function internAtom(name: string): Buffer {
  const bytes = Buffer.from(name, 'latin1');
  const head = Buffer.alloc(4);
  head.writeUInt16LE(bytes.length, 0);
  return encodeRequest(16, 0, Buffer.concat([head, bytes]));
}
/** GetProperty of at most `maxBytes` (rounded up to 4), not deleted; of another `type` it gives only that type and length. */
export const getProperty = (window: number, property: number, type: number, maxBytes: number) =>
  encodeRequest(20, 0, words(window, property, type, 0, Math.ceil(maxBytes / 4)));

// Replies. Each is a whole packet from X11Connection; a reply shorter than it says throws a RangeError here.

export const parseInternAtom = (reply: Buffer) => reply.readUInt32LE(8);

export function parseMapState(reply: Buffer): number {
  if (reply.length < 44) throw new RangeError('GetWindowAttributes reply shorter than 44 bytes');
  return reply[26];
}

export function parseGeometry(reply: Buffer): { x: number; y: number; width: number; height: number; border: number } {
  return {
    x: reply.readInt16LE(12), y: reply.readInt16LE(14),
    width: reply.readUInt16LE(16), height: reply.readUInt16LE(18), border: reply.readUInt16LE(20),
  };
}

/** The children of a window, bottom to top in stacking order. */
export function parseQueryTree(reply: Buffer): number[] {
  const n = reply.readUInt16LE(16);
  if (32 + 4 * n > reply.length) throw new RangeError('QueryTree reply shorter than its children');
  const children = new Array<number>(n);
  for (let i = 0; i < n; i++) children[i] = reply.readUInt32LE(32 + 4 * i);
  return children;
}

export type Property = { type: number; format: number; value: Buffer; bytesAfter: number };

export function parseProperty(reply: Buffer): Property {
  const format = reply[1];
  if (format !== 0 && format !== 8 && format !== 16 && format !== 32) throw new RangeError(`property format ${format}`);
  const size = reply.readUInt32LE(16) * (format / 8);
  if (32 + size > reply.length) throw new RangeError('GetProperty reply shorter than its value');
  return { type: reply.readUInt32LE(8), format, value: reply.subarray(32, 32 + size), bytesAfter: reply.readUInt32LE(12) };
}

/** The MIT-MAGIC-COOKIE-1 of an Xauthority file (displays.ts writes one entry): its first such cookie. */
export function xauthorityCookie(file: Buffer): Buffer | null {
  let at = 0;
  const field = () => {
    const length = file.readUInt16BE(at);
    const value = file.subarray(at + 2, at + 2 + length);
    at += 2 + length;
    return value;
  };
  try {
    while (at < file.length) {
      at += 2; // family
      field(); // address
      field(); // display number
      const name = field().toString('latin1');
      const data = field();
      if (name === 'MIT-MAGIC-COOKIE-1' && data.length === 16) return data;
    }
  } catch {} // truncated
  return null;
}
