// PNG encoder for framebuffer rectangles over node:zlib: 8-bit truecolour without alpha (the
// framebuffer's alpha is always 255), one filter for every row, one IDAT chunk. No interlacing, no
// palette and no per-row adaptive filtering: measured on this machine, 'up' at level 6 is a good single
// default for screens (docs/desktop-gateway.md §3.4).
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

/** The filtered scanlines of `rect` (each row: a filter byte, then RGB triples). */
export function scanlines(fb: Framebuffer, rect: Rect, filter: PngFilter = 'up'): Buffer {
  const { x, y, w, h } = rect;
  if (w <= 0 || h <= 0 || x < 0 || y < 0 || x + w > fb.width || y + h > fb.height) {
    throw new RangeError(`rect ${w}x${h}+${x}+${y} is outside the ${fb.width}x${fb.height} framebuffer`);
  }
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

/** Wraps deflated scanlines into a PNG file. */
export function pngFile(width: number, height: number, idat: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  ihdr[10] = 0; // deflate
  ihdr[11] = 0; // adaptive filtering (per-row filter byte)
  ihdr[12] = 0; // no interlace
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** Encodes the whole framebuffer, or one rectangle of it, synchronously. */
export function encodePng(fb: Framebuffer, rect: Rect = { x: 0, y: 0, w: fb.width, h: fb.height }, options: PngOptions = {}): Buffer {
  const raw = scanlines(fb, rect, options.filter);
  return pngFile(rect.w, rect.h, zlib.deflateSync(raw, { level: options.level ?? 6 }));
}

/**
 * Scanlines up to this size are deflated inline: less than the hop through the thread pool and back, which a
 * loaded machine makes late. At level 6, 64 KB (well under a millisecond; a typed glyph is a few hundred bytes);
 * at level 1, which deflates ~4x faster, 512 KB (a menu of 205x440 pixels, 270 KB: ~2 ms inline against ~8 at
 * level 6; with one core busy the round trip through the pool cost such an answer more than the deflate).
 */
const inlineBytes = (level: number) => (level <= 1 ? 512 * 1024 : 64 * 1024);

/**
 * Encodes off the main thread: the pixels are copied synchronously (so later framebuffer updates do not
 * tear the image), the deflate of anything but a small rect runs in libuv's thread pool.
 */
export async function encodePngAsync(fb: Framebuffer, rect: Rect = { x: 0, y: 0, w: fb.width, h: fb.height }, options: PngOptions = {}): Promise<Buffer> {
  const raw = scanlines(fb, rect, options.filter);
  const level = options.level ?? 6;
  return pngFile(rect.w, rect.h, raw.length <= inlineBytes(level) ? zlib.deflateSync(raw, { level }) : await deflate(raw, { level }));
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
  const idat: Buffer[] = [];
  while (pos < png.length) {
    const len = png.readUInt32BE(pos);
    const type = png.toString('latin1', pos + 4, pos + 8);
    const data = png.subarray(pos + 8, pos + 8 + len);
    if (crc32(png.subarray(pos + 4, pos + 8 + len)) !== png.readUInt32BE(pos + 8 + len)) throw new Error(`bad CRC in ${type}`);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[9] !== 2 || data[12] !== 0) throw new Error('unsupported PNG flavour');
    } else if (type === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
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
