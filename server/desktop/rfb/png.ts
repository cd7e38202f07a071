// PNG encoder for framebuffer rectangles over node:zlib, one IDAT chunk, no interlacing. A rectangle of at
// most 256 colours (a terminal, a menu, most of a desktop's chrome) is 8-bit indexed, unfiltered; any other is
// 8-bit truecolour without alpha (the framebuffer's alpha is always 255) with one filter for every row: 'up'
// at level 6 is a good single default for screens (docs/desktop-gateway.md §3.4). Indexed, xterm's menu
// (200x432) deflates from a third of the bytes: ~0.6 ms and 6 KB at level 1, against ~1.0 ms and 9.8 KB.
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import type { Framebuffer, Rect } from '../types.ts';

export type PngFilter = 'none' | 'sub' | 'up';
export type PngOptions = {
  /** @default 'up' */
  filter?: PngFilter;
  /** zlib level 0–9. @default 6 */
  level?: number;
};

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const FILTER_CODE: Record<PngFilter, number> = { none: 0, sub: 1, up: 2 };
const deflate = promisify(zlib.deflate);

function checkRect(fb: Framebuffer, { x, y, w, h }: Rect): void {
  if (w <= 0 || h <= 0 || x < 0 || y < 0 || x + w > fb.width || y + h > fb.height) {
    throw new RangeError(`rect ${w}x${h}+${x}+${y} is outside the ${fb.width}x${fb.height} framebuffer`);
  }
}

/** The filtered scanlines of `rect` (each row: a filter byte, then RGB triples). */
export function scanlines(fb: Framebuffer, rect: Rect, filter: PngFilter = 'up'): Buffer {
  checkRect(fb, rect);
  const { x, y, w, h } = rect;
  const src = fb.data;
  const rowBytes = 1 + w * 3;
  const out = Buffer.allocUnsafe(rowBytes * h);
  const code = FILTER_CODE[filter];
  for (let row = 0; row < h; row++) {
    let s = ((y + row) * fb.width + x) * 4;
    let o = row * rowBytes;
    out[o++] = row === 0 && code === 2 ? 0 : code; // 'up' on the first row equals 'none'
    if (code === 0 || (code === 2 && row === 0)) {
      for (let i = 0; i < w; i++, s += 4) {
        out[o++] = src[s];
        out[o++] = src[s + 1];
        out[o++] = src[s + 2];
      }
    } else if (code === 2) {
      const above = fb.width * 4;
      for (let i = 0; i < w; i++, s += 4) {
        out[o++] = (src[s] - src[s - above]) & 0xff;
        out[o++] = (src[s + 1] - src[s + 1 - above]) & 0xff;
        out[o++] = (src[s + 2] - src[s + 2 - above]) & 0xff;
      }
    } else {
      out[o++] = src[s];
      out[o++] = src[s + 1];
      out[o++] = src[s + 2];
      s += 4;
      for (let i = 1; i < w; i++, s += 4) {
        out[o++] = (src[s] - src[s - 4]) & 0xff;
        out[o++] = (src[s + 1] - src[s - 3]) & 0xff;
        out[o++] = (src[s + 2] - src[s - 2]) & 0xff;
      }
    }
  }
  return out;
}

/**
 * The rectangle as palette indices, one byte a pixel after each row's filter byte (0), and the palette (RGB
 * triples), or null once a 257th colour shows up. Needs the framebuffer's bytes 4-aligned (it reads pixels as
 * 32-bit words); otherwise null.
 */
function indexedScanlines(fb: Framebuffer, rect: Rect): { raw: Buffer; palette: Buffer } | null {
  const { x, y, w, h } = rect;
  const src = fb.data;
  if (src.byteOffset % 4) return null;
  const words = new Int32Array(src.buffer, src.byteOffset, src.length >> 2);
  const raw = Buffer.allocUnsafe((w + 1) * h);
  const palette = Buffer.allocUnsafe(256 * 3);
  const indices = new Map<number, number>();
  let last = 0;
  let lastIndex = -1;
  let o = 0;
  for (let row = 0; row < h; row++) {
    raw[o++] = 0;
    for (let i = (y + row) * fb.width + x, end = i + w; i < end; i++) {
      const word = words[i];
      // Screens come in runs of one colour: most pixels are the one before.
      if (word !== last || lastIndex < 0) {
        let index = indices.get(word);
        if (index === undefined) {
          index = indices.size;
          if (index === 256) return null;
          indices.set(word, index);
          src.copy(palette, index * 3, i * 4, i * 4 + 3);
        }
        last = word;
        lastIndex = index;
      }
      raw[o++] = lastIndex;
    }
  }
  return { raw, palette: palette.subarray(0, indices.size * 3) };
}

/** Wraps deflated scanlines into a PNG file: indexed with `palette`, truecolour without. */
export function pngFile(width: number, height: number, idat: Buffer, palette?: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = palette ? 3 : 2; // colour type: indexed, or truecolour
  ihdr[10] = 0; // deflate
  ihdr[11] = 0; // adaptive filtering (per-row filter byte)
  ihdr[12] = 0; // no interlace
  const plte = palette ? [chunk('PLTE', palette)] : [];
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), ...plte, chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** What gets deflated: indices when the rectangle has few enough colours, else filtered RGB rows. */
function pixelsOf(fb: Framebuffer, rect: Rect, filter?: PngFilter): { raw: Buffer; palette?: Buffer } {
  checkRect(fb, rect);
  return indexedScanlines(fb, rect) ?? { raw: scanlines(fb, rect, filter) };
}

/** Encodes the whole framebuffer, or one rectangle of it, synchronously. */
export function encodePng(fb: Framebuffer, rect: Rect = { x: 0, y: 0, w: fb.width, h: fb.height }, options: PngOptions = {}): Buffer {
  const { raw, palette } = pixelsOf(fb, rect, options.filter);
  return pngFile(rect.w, rect.h, zlib.deflateSync(raw, { level: options.level ?? 6 }), palette);
}

/**
 * Scanlines up to this size are deflated inline: less than the hop through the thread pool and back, which a
 * loaded machine makes late. At level 6, 64 KB (well under a millisecond; a typed glyph is a few hundred bytes);
 * at level 1, which deflates ~4x faster, 512 KB (xterm's menu as truecolour, 205x440 pixels, 270 KB: ~2 ms inline
 * against ~8 at level 6; with one core busy the round trip through the pool cost such an answer more than the
 * deflate). Indexed, the same menu is 86 KB.
 */
const inlineBytes = (level: number) => (level <= 1 ? 512 * 1024 : 64 * 1024);

/**
 * Encodes off the main thread: the pixels are copied synchronously (so later framebuffer updates do not
 * tear the image), the deflate of anything but a small rect runs in libuv's thread pool.
 */
export async function encodePngAsync(fb: Framebuffer, rect: Rect = { x: 0, y: 0, w: fb.width, h: fb.height }, options: PngOptions = {}): Promise<Buffer> {
  const { raw, palette } = pixelsOf(fb, rect, options.filter);
  const level = options.level ?? 6;
  return pngFile(rect.w, rect.h, raw.length <= inlineBytes(level) ? zlib.deflateSync(raw, { level }) : await deflate(raw, { level }), palette);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

// zlib.crc32 exists from Node 20.15; older Node gets the classic table.
let table: Uint32Array | null = null;
function crc32(data: Buffer): number {
  if (typeof zlib.crc32 === 'function') return zlib.crc32(data) >>> 0;
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Test and tooling helper: decodes a PNG written by this module back to RGBA (alpha 255). */
export function decodeOwnPng(png: Buffer): Framebuffer {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  let pos = 8;
  let width = 0;
  let height = 0;
  let palette: Buffer | null = null;
  const idat: Buffer[] = [];
  while (pos < png.length) {
    const len = png.readUInt32BE(pos);
    const type = png.toString('latin1', pos + 4, pos + 8);
    const data = png.subarray(pos + 8, pos + 8 + len);
    if (crc32(png.subarray(pos + 4, pos + 8 + len)) !== png.readUInt32BE(pos + 8 + len)) throw new Error(`bad CRC in ${type}`);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || (data[9] !== 2 && data[9] !== 3) || data[12] !== 0) throw new Error('unsupported PNG flavour');
    } else if (type === 'PLTE') palette = Buffer.from(data);
    else if (type === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  if (palette) return fromIndices(raw, palette, width, height);
  const rowBytes = 1 + width * 3;
  if (raw.length !== rowBytes * height) throw new Error('scanline data has the wrong size');
  const out = Buffer.alloc(width * height * 4);
  const prev = Buffer.alloc(width * 3);
  const cur = Buffer.alloc(width * 3);
  for (let row = 0; row < height; row++) {
    const f = raw[row * rowBytes];
    const line = raw.subarray(row * rowBytes + 1, (row + 1) * rowBytes);
    for (let i = 0; i < line.length; i++) {
      const left = i >= 3 ? cur[i - 3] : 0;
      const up = prev[i];
      const ul = i >= 3 ? prev[i - 3] : 0;
      let v = line[i];
      if (f === 1) v += left;
      else if (f === 2) v += up;
      else if (f === 3) v += (left + up) >> 1;
      else if (f === 4) {
        const p = left + up - ul;
        const pa = Math.abs(p - left), pb = Math.abs(p - up), pc = Math.abs(p - ul);
        v += pa <= pb && pa <= pc ? left : pb <= pc ? up : ul;
      } else if (f !== 0) throw new Error(`unknown filter ${f}`);
      cur[i] = v & 0xff;
    }
    for (let i = 0; i < width; i++) {
      const o = (row * width + i) * 4;
      out[o] = cur[i * 3];
      out[o + 1] = cur[i * 3 + 1];
      out[o + 2] = cur[i * 3 + 2];
      out[o + 3] = 255;
    }
    cur.copy(prev);
  }
  return { width, height, data: out };
}

/** Unfiltered palette indices (what indexedScanlines writes) to RGBA. */
function fromIndices(raw: Buffer, palette: Buffer, width: number, height: number): Framebuffer {
  if (raw.length !== (width + 1) * height) throw new Error('scanline data has the wrong size');
  const out = Buffer.alloc(width * height * 4);
  for (let row = 0; row < height; row++) {
    if (raw[row * (width + 1)] !== 0) throw new Error('indexed rows are unfiltered here');
    for (let i = 0, o = row * width * 4; i < width; i++, o += 4) {
      const p = raw[row * (width + 1) + 1 + i] * 3;
      if (p + 3 > palette.length) throw new Error('index outside the palette');
      out[o] = palette[p];
      out[o + 1] = palette[p + 1];
      out[o + 2] = palette[p + 2];
      out[o + 3] = 255;
    }
  }
  return { width, height, data: out };
}
