// The server's messages after the handshake (RFC 6143 §7.6), cut whole from the bytes synchronously: the
// socket's data event that completes a message also parses it, with no promise in between. (Awaiting each
// field as it came, a key's echo took a median 0.14 ms from the socket's data to the applied update; cut
// whole, 0.10 ms: timed with temporary probes during the desktop bench.) A message is parsed only when all
// of it is here, so a FramebufferUpdate is applied in one step; its length is found by walking its
// rectangle headers, resumed as more bytes come, and a rectangle outside the screen is refused before its
// pixels are waited for (the desktop is untrusted).
import type { Bytes } from './bytes.ts';
import { RfbError } from './error.ts';
import { walkTiles, type TileWalk } from './hextile.ts';

export { RfbError };

/** One change of an update, in the order the server sent it. */
export type RfbOp =
  | { kind: 'rect'; x: number; y: number; w: number; h: number }
  | { kind: 'copy'; x: number; y: number; w: number; h: number; sx: number; sy: number };

/** A rectangle's pixels come as Raw ([R,G,B,X] rows) or as the Hextile body that draws them (hextile.ts). */
export type UpdateStep = { op: RfbOp; raw?: Buffer; hextile?: Buffer } | { size: [number, number] };

export type ServerMessage =
  | { kind: 'update'; steps: UpdateStep[] }
  | { kind: 'bell' }
  | { kind: 'colours' }
  /** ServerCutText: Latin-1 text. */
  | { kind: 'cut-text'; latin1: Buffer }
  /** ServerCutText with a negative length: TigerVNC's Extended Clipboard. */
  | { kind: 'extended-clipboard'; data: Buffer };

export const ENCODING = { raw: 0, copyRect: 1, hextile: 5, desktopSize: -223, lastRect: -224, extendedClipboard: 0xc0a1e5ce | 0 };
export const MAX_CUT_TEXT = 10 * 1024 * 1024;

/** A rectangle header read by the walk, with the screen size in force where it stands and its body's length. */
type Head = { x: number; y: number; w: number; h: number; encoding: number; width: number; height: number; body: number };

/**
 * How far the update at the head of the bytes has been walked: its headers so far, where the next one starts,
 * and the tiles of a Hextile rectangle whose body has not all come yet.
 */
type Walk = { count: number; heads: Head[]; at: number; width: number; height: number; tiles: TileWalk | null };

/** The largest screen taken from a server unless told otherwise: 4096×4096, a 64 MB framebuffer. */
export const MAX_PIXELS = 4096 * 4096;

/**
 * Refuses a screen size over `maxPixels`: the server allocates what a desktop announces (in ServerInit, a
 * DesktopSize, a RandR change inside the desktop), and a desktop is the agent's, so its sizes are not trusted.
 */
export function checkScreenSize(width: number, height: number, maxPixels: number): void {
  if (width * height > maxPixels) throw new RfbError(`the desktop asked for a ${width}x${height} screen, over the limit of ${maxPixels} pixels`);
}

export class MessageCutter {
  private walk: Walk | null = null;

  /** `screen`: the size the next update starts from; a DesktopSize over `maxPixels` is refused before its update is read. */
  constructor(private bytes: Bytes, private screen: () => { width: number; height: number }, private maxPixels = MAX_PIXELS) {}

  /** The next whole message, or null until all of it has arrived. Throws RfbError on a malformed one. */
  next(): ServerMessage | null {
    const b = this.bytes;
    if (b.size < 1) return null;
    const type = b.peek(0, 1)[0];
    if (type === 0) {
      const length = this.updateLength();
      return length !== null && b.size >= length ? this.update() : null;
    }
    if (type === 1) {
      if (b.size < 6) return null;
      const length = 6 + b.peek(4, 2).readUInt16BE(0) * 6;
      if (b.size < length) return null;
      b.take(length); // SetColourMapEntries: not used in true colour
      return { kind: 'colours' };
    }
    if (type === 2) {
      b.take(1);
      return { kind: 'bell' };
    }
    if (type === 3) {
      if (b.size < 8) return null;
      const length = b.peek(4, 4).readInt32BE(0);
      if (Math.abs(length) > MAX_CUT_TEXT) throw new RfbError('ServerCutText too long');
      if (length < 0 && -length < 4) throw new RfbError('bad extended clipboard message');
      if (b.size < 8 + Math.abs(length)) return null;
      b.take(8);
      const data = Buffer.from(b.take(Math.abs(length))); // a copy: the chunk it may share outlives the message
      return length >= 0 ? { kind: 'cut-text', latin1: data } : { kind: 'extended-clipboard', data };
    }
    throw new RfbError(`unexpected server message type ${type}`);
  }

  /** Bytes of the FramebufferUpdate at the head, or null until its last rectangle header has come. */
  private updateLength(): number | null {
    const b = this.bytes;
    if (!this.walk) {
      if (b.size < 4) return null;
      const { width, height } = this.screen();
      this.walk = { count: b.peek(2, 2).readUInt16BE(0), heads: [], at: 4, width, height, tiles: null };
    }
    const walk = this.walk;
    while (walk.heads.length < walk.count || walk.tiles) {
      if (walk.tiles) {
        if (!walkTiles(b, walk.tiles)) return null;
        walk.heads.at(-1)!.body = walk.tiles.at - walk.at;
        walk.at = walk.tiles.at;
        walk.tiles = null;
        continue;
      }
      if (b.size < walk.at + 12) return null;
      const h = b.peek(walk.at, 12);
      const x = h.readUInt16BE(0);
      const y = h.readUInt16BE(2);
      const w = h.readUInt16BE(4);
      const ht = h.readUInt16BE(6);
      const encoding = h.readInt32BE(8);
      // A plain literal: V8 builds `{ ...head, width, … }` (a spread with keys after it) in its runtime, ~5 µs a
      // rectangle, which made a scrolling terminal's 183-rectangle update take 1.1 ms to cut instead of 0.14.
      walk.heads.push({ x, y, w, h: ht, encoding, width: walk.width, height: walk.height, body: 0 });
      walk.at += 12;
      if (encoding === ENCODING.lastRect) break;
      if (encoding === ENCODING.desktopSize) {
        checkScreenSize(w, ht, this.maxPixels);
        [walk.width, walk.height] = [w, ht];
        continue;
      }
      if (x + w > walk.width || y + ht > walk.height) throw new RfbError(`rect ${w}x${ht}+${x}+${y} outside the ${walk.width}x${walk.height} screen`);
      if (encoding === ENCODING.raw) walk.at += w * ht * 4;
      else if (encoding === ENCODING.copyRect) walk.at += 4;
      else if (encoding === ENCODING.hextile) walk.tiles = { w, h: ht, tile: 0, at: walk.at };
      else throw new RfbError(`unsupported encoding ${encoding}`);
    }
    return walk.at;
  }

  /** Takes the walked update, all of it here: the headers are skipped, the bodies taken. */
  private update(): ServerMessage {
    const b = this.bytes;
    const heads = this.walk!.heads;
    this.walk = null;
    b.take(4);
    const steps: UpdateStep[] = [];
    for (const { x, y, w, h, encoding, width, height, body } of heads) {
      b.take(12);
      if (encoding === ENCODING.desktopSize) steps.push({ size: [w, h] });
      else if (encoding === ENCODING.raw) steps.push({ op: { kind: 'rect', x, y, w, h }, raw: b.take(w * h * 4) });
      else if (encoding === ENCODING.hextile) steps.push({ op: { kind: 'rect', x, y, w, h }, hextile: b.take(body) });
      else if (encoding === ENCODING.copyRect) {
        const src = b.take(4);
        const [sx, sy] = [src.readUInt16BE(0), src.readUInt16BE(2)];
        if (sx + w > width || sy + h > height) throw new RfbError('CopyRect source outside the screen');
        steps.push({ op: { kind: 'copy', x, y, w, h, sx, sy } });
      }
    }
    return { kind: 'update', steps };
  }
}
