// A fake X server on a Unix socket for the X11 client's tests (server/desktop/start/x11-client.ts): it answers the
// setup and the requests windows.ts asks from a model of windows the test writes, little-endian as the client asks.
// Its knobs make it hostile: it can go silent, claim a huge reply, or refuse the cookie.
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type FakeWindow = {
  id: number;
  parent: number;
  x: number;
  y: number;
  width: number;
  height: number;
  border?: number;
  /** @default true */
  mapped?: boolean;
  /** WM_NAME (STRING: Latin-1 bytes). */
  name?: string | Buffer;
  /** _NET_WM_NAME (UTF8_STRING). */
  netName?: string | Buffer;
  /** WM_CLASS: instance and class, each NUL-terminated. */
  wmClass?: [string, string];
};

export const ROOT = 0x100;
const ATOMS = ['PRIMARY', 'SECONDARY', 'ARC', 'ATOM', 'BITMAP', 'CARDINAL', 'COLORMAP', 'CURSOR'];
const STRING = 31;
const WINDOW = 33;
const WM_NAME = 39;
const WM_CLASS = 67;

/** A reply packet: sequence number, its data byte, and what follows the first 8 bytes (padded to 24 at least). */
export function replyPacket(seq: number, data: number, body: Buffer): Buffer {
  const padded = Buffer.concat([body, Buffer.alloc(Math.max(24 - body.length, (4 - (body.length % 4)) % 4))]);
  const head = Buffer.alloc(8);
  head[0] = 1;
  head[1] = data;
  head.writeUInt16LE(seq & 0xffff, 2);
  head.writeUInt32LE((padded.length - 24) / 4, 4);
  return Buffer.concat([head, padded]);
}

/** A successful setup reply with one screen whose root is `root`. */
export function setupReply(root = ROOT, width = 1280, height = 800, vendor = 'Fake X'): Buffer {
  const v = Buffer.from(vendor);
  const vendorPadded = Buffer.concat([v, Buffer.alloc((4 - (v.length % 4)) % 4)]);
  const fixed = Buffer.alloc(32);
  fixed.writeUInt32LE(0x400000, 4); // resource-id-base
  fixed.writeUInt32LE(0x1fffff, 8); // resource-id-mask
  fixed.writeUInt16LE(v.length, 16);
  fixed.writeUInt16LE(0xffff, 18);
  fixed[20] = 1; // screens
  fixed[21] = 1; // pixmap formats
  const format = Buffer.from([24, 32, 32, 0, 0, 0, 0, 0]);
  const screen = Buffer.alloc(40);
  screen.writeUInt32LE(root, 0);
  screen.writeUInt16LE(width, 20);
  screen.writeUInt16LE(height, 22);
  const rest = Buffer.concat([fixed, vendorPadded, format, screen]);
  const head = Buffer.from([1, 0, 11, 0, 0, 0, 0, 0]);
  head.writeUInt16LE(rest.length / 4, 6);
  return Buffer.concat([head, rest]);
}

export class FakeXServer {
  readonly path: string;
  windows = new Map<number, FakeWindow>();
  /** _NET_ACTIVE_WINDOW of the root, if set. */
  active: number | null = null;
  /** Answers nothing after the setup. */
  mute = false;
  /** Answers QueryTree with a header that claims this many bytes (and sends no more). */
  claim = 0;
  /** Refuses every connection. */
  refuse = false;
  connections = 0;
  requests = 0;
  private atoms = new Map<string, number>([['STRING', STRING], ['WINDOW', WINDOW], ['WM_NAME', WM_NAME], ['WM_CLASS', WM_CLASS]]);
  private sockets = new Set<Socket>();
  private dir: string;

  private constructor(private server: Server) {
    this.dir = mkdtempSync(join(tmpdir(), 'aw-fake-x-'));
    this.path = join(this.dir, 'X0');
  }

  static async start(): Promise<FakeXServer> {
    const fake: FakeXServer = new FakeXServer(createServer((socket) => fake.serve(socket)));
    await new Promise<void>((resolve) => fake.server.listen(fake.path, resolve));
    ATOMS.forEach((name, i) => fake.atoms.set(name, i + 1));
    return fake;
  }

  add(...windows: FakeWindow[]): void {
    for (const w of windows) this.windows.set(w.id, w);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server.close(resolve));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private serve(socket: Socket): void {
    this.connections++;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    let setUp = false;
    let seq = 0;
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (!setUp) {
        if (buf.length < 12) return;
        const size = 12 + Math.ceil(buf.readUInt16LE(6) / 4) * 4 + Math.ceil(buf.readUInt16LE(8) / 4) * 4;
        if (buf.length < size) return;
        buf = buf.subarray(size);
        setUp = true;
        if (this.refuse) {
          const reason = Buffer.from('Authorization required, but no authorization protocol specified\n');
          const head = Buffer.from([0, reason.length, 11, 0, 0, 0, 0, 0]);
          const padded = Buffer.concat([reason, Buffer.alloc((4 - (reason.length % 4)) % 4)]);
          head.writeUInt16LE(padded.length / 4, 6);
          return void socket.end(Buffer.concat([head, padded]));
        }
        socket.write(setupReply());
      }
      while (buf.length >= 4 && buf.length >= 4 * buf.readUInt16LE(2)) {
        const request = buf.subarray(0, 4 * buf.readUInt16LE(2));
        buf = buf.subarray(request.length);
        seq++;
        this.requests++;
        if (this.mute) continue;
        const answer = this.answer(request, seq);
        if (answer) socket.write(answer);
      }
    });
  }

  private answer(r: Buffer, seq: number): Buffer | null {
    const window = r.length >= 8 ? r.readUInt32LE(4) : 0;
    const w = this.windows.get(window);
    const known = w || window === ROOT;
    switch (r[0]) {
      case 3: { // GetWindowAttributes
        if (!known) return errorPacket(seq, 3, window);
        const body = Buffer.alloc(36);
        body[18] = w?.mapped === false ? 0 : 2;
        return replyPacket(seq, 0, body);
      }
      case 14: { // GetGeometry
        if (!known) return errorPacket(seq, 9, window);
        const body = Buffer.alloc(24);
        body.writeUInt32LE(ROOT, 0);
        body.writeInt16LE(w?.x ?? 0, 4);
        body.writeInt16LE(w?.y ?? 0, 6);
        body.writeUInt16LE(w?.width ?? 1280, 8);
        body.writeUInt16LE(w?.height ?? 800, 10);
        body.writeUInt16LE(w?.border ?? 0, 12);
        return replyPacket(seq, 24, body);
      }
      case 15: { // QueryTree: children in the order added, bottom to top
        if (!known) return errorPacket(seq, 3, window);
        if (this.claim) return replyPacket(seq, 0, Buffer.alloc(24)).fill(0xff, 4, 8).subarray(0, 32);
        const children = [...this.windows.values()].filter((c) => c.parent === window).map((c) => c.id);
        const body = Buffer.alloc(24 + 4 * children.length);
        body.writeUInt32LE(ROOT, 0);
        body.writeUInt16LE(children.length, 8);
        children.forEach((c, i) => body.writeUInt32LE(c, 24 + 4 * i));
        return replyPacket(seq, 0, body);
      }
      case 16: { // InternAtom
        const name = r.subarray(8, 8 + r.readUInt16LE(4)).toString('latin1');
        if (!this.atoms.has(name)) this.atoms.set(name, 200 + this.atoms.size);
        const body = Buffer.alloc(24);
        body.writeUInt32LE(this.atoms.get(name)!, 0);
        return replyPacket(seq, 0, body);
      }
      case 20: // GetProperty
        return known ? this.property(seq, r, w) : errorPacket(seq, 3, window);
      default:
        return null;
    }
  }

  private property(seq: number, r: Buffer, w: FakeWindow | undefined): Buffer {
    const [property, type, maxBytes] = [r.readUInt32LE(8), r.readUInt32LE(12), 4 * r.readUInt32LE(20)];
    const utf8 = this.atoms.get('UTF8_STRING');
    let value: { type: number; format: number; bytes: Buffer } | null = null;
    const bytes = (s: string | Buffer, encoding: BufferEncoding) => (typeof s === 'string' ? Buffer.from(s, encoding) : s);
    if (!w && property === this.atoms.get('_NET_ACTIVE_WINDOW') && this.active !== null) {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(this.active);
      value = { type: WINDOW, format: 32, bytes: b };
    }
    if (w?.name !== undefined && property === WM_NAME) value = { type: STRING, format: 8, bytes: bytes(w.name, 'latin1') };
    if (w?.netName !== undefined && property === this.atoms.get('_NET_WM_NAME')) value = { type: utf8!, format: 8, bytes: bytes(w.netName, 'utf8') };
    if (w?.wmClass && property === WM_CLASS) value = { type: STRING, format: 8, bytes: Buffer.from(`${w.wmClass.join('\0')}\0`, 'latin1') };
    const body = Buffer.alloc(24);
    if (!value) return replyPacket(seq, 0, body);
    body.writeUInt32LE(value.type, 0);
    if (type !== 0 && type !== value.type) {
      body.writeUInt32LE(value.bytes.length, 4);
      return replyPacket(seq, value.format, body);
    }
    const sent = value.bytes.subarray(0, maxBytes);
    body.writeUInt32LE(value.bytes.length - sent.length, 4);
    body.writeUInt32LE(sent.length / (value.format / 8), 8);
    return replyPacket(seq, value.format, Buffer.concat([body, sent]));
  }
}

/** An X error: code (3 BadWindow, 9 BadDrawable), the request's sequence number and the bad resource. */
export function errorPacket(seq: number, code: number, resource: number): Buffer {
  const b = Buffer.alloc(32);
  b[1] = code;
  b.writeUInt16LE(seq & 0xffff, 2);
  b.writeUInt32LE(resource, 4);
  return b;
}
