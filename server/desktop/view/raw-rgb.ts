// Small rectangles (a typed character, a caret, a button's press) go to the browser as raw RGB instead
// of PNG. The browser puts raw pixels on a canvas within the task that received them; a PNG is decoded
// elsewhere and becomes drawable a task later, which a busy page runs late (a typed key: ~5 ms idle,
// ~19 ms with one core busy; BENCH_VERBOSE=1 node scripts/bench-desktop.mjs). Larger rectangles stay
// PNG: there the bytes matter more than a task. The live view's display-images.ts draws this type.
import type { Framebuffer, Rect } from '../types.ts';

/** At most 64×64: 16 KB of base64, against a glyph's few hundred bytes as PNG. */
export const RAW_MAX_PIXELS = 4096;

/** The `img` mimetype: rows of R, G, B bytes, `width` pixels each, top to bottom. */
export const rawRgbMimetype = (width: number) => `image/x-raw-rgb;width=${width}`;

/** The rectangle's pixels as base64 RGB, copied now. */
export function rawRgb(fb: Framebuffer, rect: Rect): string {
  const { x, y, w, h } = rect;
  const out = Buffer.allocUnsafe(w * h * 3);
  let o = 0;
  for (let row = 0; row < h; row++) {
    for (let s = ((y + row) * fb.width + x) * 4, end = s + w * 4; s < end; s += 4) {
      out[o++] = fb.data[s];
      out[o++] = fb.data[s + 1];
      out[o++] = fb.data[s + 2];
    }
  }
  return out.toString('base64');
}
