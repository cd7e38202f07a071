// The installed app's icons as PNGs, drawn here at build time instead of kept as binaries: public/favicon.svg's picture
// (a screen on an indigo tile, in its 32-unit coordinates) by signed distances, antialiased with 4×4 samples a pixel.
// The maskable icon fills the square and keeps the picture inside the central circle of 80 % that a launcher may crop to
// (https://www.w3.org/TR/appmanifest/#icon-masks); the badge is the picture alone in white, which Android tints.
import { deflateSync } from 'node:zlib';

const INDIGO = [0x4f, 0x46, 0xe5];
const WHITE = [0xff, 0xff, 0xff];
const SAMPLES = 4;

/** Distance from p to a rounded box centred on (cx, cy) with half sizes (hx, hy) and corner radius r; negative inside. */
function roundedBox(x, y, cx, cy, hx, hy, r) {
  const qx = Math.abs(x - cx) - hx + r;
  const qy = Math.abs(y - cy) - hy + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

/** Whether the favicon's white strokes cover a point: the screen's outline, its stand and the dot (stroke width 2). */
function glyph(x, y) {
  const screen = Math.abs(roundedBox(x, y, 16, 15, 9, 6, 2)) <= 1;
  const stand = Math.hypot(x - Math.min(Math.max(x, 12), 20), y - 25) <= 1;
  const dot = Math.hypot(x - 16, y - 15) <= 2;
  return screen || stand || dot;
}

/** The tile (rounded, or the whole square when maskable) as coverage of tile and glyph at a point in icon units. */
function sample(u, v, kind) {
  if (kind === 'badge') return { tile: glyph(u, v) ? 1 : 0, glyph: 1 };
  if (kind === 'maskable') {
    // The picture at 80 % about the centre: its farthest corner stays ~11.3 units out, inside the 12.8 of the safe zone.
    return { tile: 1, glyph: glyph(16 + (u - 16) / 0.8, 16 + (v - 16) / 0.8) ? 1 : 0 };
  }
  return { tile: roundedBox(u, v, 16, 16, 16, 16, 8) <= 0 ? 1 : 0, glyph: glyph(u, v) ? 1 : 0 };
}

/** RGBA pixels of one icon: kind 'any' (rounded tile), 'maskable' (full bleed) or 'badge' (white picture, transparent). */
export function drawIcon(size, kind = 'any') {
  const rgba = Buffer.alloc(size * size * 4);
  const unit = 32 / size;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let tile = 0;
      let white = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const hit = sample((px + (sx + 0.5) / SAMPLES) * unit, (py + (sy + 0.5) / SAMPLES) * unit, kind);
          tile += hit.tile;
          white += hit.tile * hit.glyph;
        }
      }
      const o = (py * size + px) * 4;
      const share = tile ? white / tile : 0;
      for (let c = 0; c < 3; c++) rgba[o + c] = Math.round(INDIGO[c] + (WHITE[c] - INDIGO[c]) * (kind === 'badge' ? 1 : share));
      rgba[o + 3] = Math.round((255 * tile) / (SAMPLES * SAMPLES));
    }
  }
  return encodePng(size, size, rgba);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An 8-bit RGBA PNG, unfiltered rows in one IDAT chunk. */
export function encodePng(width, height, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type 6 (RGBA), deflate, no filter method, no interlace
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) rgba.copy(rows, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(rows, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

/** The icons the manifest and the service worker name, by file name under /icons. */
export const APP_ICONS = [
  { file: 'icon-192.png', size: 192, kind: 'any' },
  { file: 'icon-512.png', size: 512, kind: 'any' },
  { file: 'icon-maskable-512.png', size: 512, kind: 'maskable' },
  { file: 'badge-96.png', size: 96, kind: 'badge' },
];
