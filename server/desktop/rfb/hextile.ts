// Hextile (RFC 6143 §7.7.4): a rectangle as 16×16 tiles, each a subencoding byte and then raw pixels, or a
// background and subrectangles of a foreground or their own colour. Xvnc sends an xterm's Ctrl+click menu
// (200×434) as ~320 KB of Raw but ~6 KB of Hextile, encoded in C, and Hextile needs no zlib stream kept across
// rectangles as Tight and ZRLE do. The pixels are 32-bit [R,G,B,X], as the client's pixel format asks.
import type { Bytes } from './bytes.ts';
import { RfbError } from './error.ts';

const RAW = 1;
const BACKGROUND = 2;
const FOREGROUND = 4;
const SUBRECTS = 8;
const COLOURED = 16;
const TILE = 16;

/** How far the walk through one rectangle's tiles has come: the next tile, and where its bytes start. */
export type TileWalk = { w: number; h: number; tile: number; at: number };

/**
 * Walks the tiles of the rectangle whose body starts at `walk.at` in the buffered bytes, as far as they
 * have come. Returns true once the last tile's end is known (`walk.at` is then the body's end); false to be
 * called again when more bytes are here. Only the subencoding bytes and subrectangle counts are read.
 */
export function walkTiles(bytes: Bytes, walk: TileWalk): boolean {
  const cols = Math.ceil(walk.w / TILE);
  const tiles = cols * Math.ceil(walk.h / TILE);
  while (walk.tile < tiles) {
    if (bytes.size < walk.at + 1) return false;
    const sub = bytes.byte(walk.at);
    let length = 1;
    if (sub & RAW) {
      const tw = Math.min(TILE, walk.w - (walk.tile % cols) * TILE);
      const th = Math.min(TILE, walk.h - Math.floor(walk.tile / cols) * TILE);
      length += tw * th * 4;
    } else {
      if (sub & BACKGROUND) length += 4;
      if (sub & FOREGROUND) length += 4;
      if (sub & SUBRECTS) {
        if (bytes.size < walk.at + length + 1) return false;
        length += 1 + bytes.byte(walk.at + length) * (sub & COLOURED ? 6 : 2);
      }
    }
    walk.at += length;
    walk.tile++;
  }
  return true;
}

// Pixels are written as 32-bit words (int32, which optimised code keeps unboxed) whose bytes in memory are
// [R,G,B,255]: the wire's X byte becomes the framebuffer's alpha.
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Draws a walked body (all of it, as one buffer) straight into the RGBA framebuffer `fb` (as 32-bit words,
 * `stride` pixels a row) at x, y: no pixel buffer between, which cost as much as the decode.
 */
export function drawHextile(body: Buffer, fb: Int32Array, stride: number, x: number, y: number, w: number, h: number): void {
  const pixel = LITTLE_ENDIAN
    ? (at: number) => body[at] | (body[at + 1] << 8) | (body[at + 2] << 16) | (255 << 24)
    : (at: number) => (body[at] << 24) | (body[at + 1] << 16) | (body[at + 2] << 8) | 255;
  // The background and foreground carry over from tile to tile within the rectangle.
  let background = 0;
  let foreground = 0;
  let at = 0;
  for (let y0 = y; y0 < y + h; y0 += TILE) {
    const th = Math.min(TILE, y + h - y0);
    for (let x0 = x; x0 < x + w; x0 += TILE) {
      const tw = Math.min(TILE, x + w - x0);
      const sub = body[at++];
      if (sub & RAW) {
        for (let row = 0; row < th; row++) {
          const start = (y0 + row) * stride + x0;
          for (let i = 0; i < tw; i++, at += 4) fb[start + i] = pixel(at);
        }
        continue;
      }
      if (sub & BACKGROUND) (background = pixel(at)), (at += 4);
      if (sub & FOREGROUND) (foreground = pixel(at)), (at += 4);
      fill(fb, stride, x0, y0, tw, th, background);
      if (!(sub & SUBRECTS)) continue;
      const count = body[at++];
      for (let i = 0; i < count; i++) {
        let colour = foreground;
        if (sub & COLOURED) (colour = pixel(at)), (at += 4);
        const sx = body[at] >> 4;
        const sy = body[at] & 15;
        const sw = (body[at + 1] >> 4) + 1;
        const sh = (body[at + 1] & 15) + 1;
        at += 2;
        // The desktop is untrusted: a subrectangle that leaves its tile would write into the next one's.
        if (sx + sw > tw || sy + sh > th) throw new RfbError(`Hextile subrectangle ${sw}x${sh}+${sx}+${sy} outside its ${tw}x${th} tile`);
        fill(fb, stride, x0 + sx, y0 + sy, sw, sh, colour);
      }
    }
  }
}

// A loop, not TypedArray.fill: most fills are a tile's row of 16 pixels or a glyph's stroke, and a call of fill
// costs more than that many stores.
function fill(fb: Int32Array, stride: number, x: number, y: number, w: number, h: number, value: number): void {
  for (let row = y; row < y + h; row++) {
    for (let i = row * stride + x, end = i + w; i < end; i++) fb[i] = value;
  }
}
