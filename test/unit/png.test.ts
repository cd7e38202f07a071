import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inflateSync } from 'node:zlib';
import { decodeOwnPng, encodePng, encodePngAsync } from '../../server/desktop/rfb/png.ts';
import type { Framebuffer } from '../../server/desktop/types.ts';

/** A framebuffer with gradients, noise and flat areas, so every filter path matters. */
function sample(width: number, height: number): Framebuffer {
  const data = Buffer.alloc(width * height * 4);
  let seed = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const noisy = x > width / 2;
      data[o] = noisy ? seed & 0xff : (x * 7) & 0xff;
      data[o + 1] = noisy ? (seed >> 8) & 0xff : (y * 5) & 0xff;
      data[o + 2] = y < 3 ? 0 : (x ^ y) & 0xff;
      data[o + 3] = 255;
    }
  }
  return { width, height, data };
}

function crop(fb: Framebuffer, x: number, y: number, w: number, h: number): Buffer {
  const out = Buffer.alloc(w * h * 4);
  for (let row = 0; row < h; row++) fb.data.copy(out, row * w * 4, ((y + row) * fb.width + x) * 4, ((y + row) * fb.width + x + w) * 4);
  return out;
}

/**
 * An independent reading of the file: chunk walk + node:zlib inflate + the PNG filter definitions, and for
 * an indexed file (colour type 3) the palette lookup; `colourType` says which the file was.
 */
function referenceDecode(png: Buffer): { width: number; height: number; rgb: Buffer; colourType: number; colours: number } {
  assert.equal([...png.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);
  let pos = 8;
  const idat: Buffer[] = [];
  let width = 0, height = 0, colourType = 0;
  let palette: Buffer = Buffer.alloc(0);
  const types: string[] = [];
  while (pos < png.length) {
    const len = png.readUInt32BE(pos);
    const type = png.toString('ascii', pos + 4, pos + 8);
    types.push(type);
    if (type === 'IHDR') {
      width = png.readUInt32BE(pos + 8);
      height = png.readUInt32BE(pos + 12);
      colourType = png[pos + 17];
    }
    if (type === 'PLTE') palette = png.subarray(pos + 8, pos + 8 + len);
    if (type === 'IDAT') idat.push(png.subarray(pos + 8, pos + 8 + len));
    pos += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  if (colourType === 3) {
    assert.equal(types, ['IHDR', 'PLTE', 'IDAT', 'IEND']);
    const rgb = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
      assert.is(raw[y * (width + 1)], 0, 'filter none');
      for (let x = 0; x < width; x++) palette.copy(rgb, (y * width + x) * 3, raw[y * (width + 1) + 1 + x] * 3, raw[y * (width + 1) + 1 + x] * 3 + 3);
    }
    return { width, height, rgb, colourType, colours: palette.length / 3 };
  }
  assert.equal(types, ['IHDR', 'IDAT', 'IEND']);
  assert.is(colourType, 2);
  const stride = width * 3;
  const rgb = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let i = 0; i < stride; i++) {
      const v = raw[y * (stride + 1) + 1 + i];
      const left = i >= 3 ? rgb[y * stride + i - 3] : 0;
      const up = y > 0 ? rgb[(y - 1) * stride + i] : 0;
      rgb[y * stride + i] = (filter === 0 ? v : filter === 1 ? v + left : filter === 2 ? v + up : NaN) & 0xff;
      assert.ok(filter <= 2, `filter ${filter}`);
    }
  }
  return { width, height, rgb, colourType, colours: 0 };
}

function rgbOf(rgba: Buffer): Buffer {
  const out = Buffer.alloc((rgba.length / 4) * 3);
  for (let i = 0, o = 0; i < rgba.length; i += 4) {
    out[o++] = rgba[i];
    out[o++] = rgba[i + 1];
    out[o++] = rgba[i + 2];
  }
  return out;
}

const png = suite('png encoder');

png('full frames decode back to the same pixels with every filter', () => {
  const fb = sample(97, 41);
  for (const filter of ['none', 'sub', 'up'] as const) {
    const file = encodePng(fb, undefined, { filter });
    const ref = referenceDecode(file);
    assert.is(ref.width, 97);
    assert.is(ref.height, 41);
    assert.ok(ref.rgb.equals(rgbOf(fb.data)), filter);
    assert.ok(decodeOwnPng(file).data.equals(fb.data), `${filter} via decodeOwnPng`);
  }
});

png('sub-rectangles, including edges and 1-pixel ones', () => {
  const fb = sample(64, 48);
  for (const [x, y, w, h] of [[0, 0, 1, 1], [63, 47, 1, 1], [10, 5, 20, 30], [0, 47, 64, 1], [33, 0, 31, 48]]) {
    const file = encodePng(fb, { x, y, w, h });
    assert.ok(referenceDecode(file).rgb.equals(rgbOf(crop(fb, x, y, w, h))), `${w}x${h}+${x}+${y}`);
  }
});

png('the async encoder writes the same file and snapshots pixels at call time, small rects (inline) and large', async () => {
  for (const size of [50, 200]) {
    const fb = sample(size, size);
    const expected = encodePng(fb);
    const pending = encodePngAsync(fb);
    fb.data.fill(0); // a later framebuffer update must not tear the image
    assert.ok((await pending).equals(expected), `${size}x${size}`);
  }
});

/** A framebuffer of `colours` colours, each a run of a few pixels, repeated. */
function fewColours(width: number, height: number, colours: number): Framebuffer {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const c = Math.floor(i / 3) % colours;
    data.set([c & 0xff, (c * 37) & 0xff, c >> 8, 255], i * 4);
  }
  return { width, height, data };
}

png('a rectangle of at most 256 colours is indexed, and decodes to the same pixels; one of 257 is truecolour', async () => {
  for (const [colours, type] of [[2, 3], [256, 3], [257, 2]]) {
    const fb = fewColours(40, 30, colours);
    for (const file of [encodePng(fb), await encodePngAsync(fb, undefined, { level: 1 })]) {
      const ref = referenceDecode(file);
      assert.is(ref.colourType, type, `${colours} colours`);
      if (type === 3) assert.is(ref.colours, colours, 'the palette holds the colours used, no more');
      assert.ok(ref.rgb.equals(rgbOf(fb.data)), `${colours} colours`);
      assert.ok(decodeOwnPng(file).data.equals(fb.data), `${colours} colours via decodeOwnPng`);
    }
  }
  // A sub-rectangle counts only its own colours, and its indices start afresh.
  const fb = fewColours(40, 30, 300);
  const ref = referenceDecode(encodePng(fb, { x: 3, y: 2, w: 6, h: 4 }));
  assert.is(ref.colourType, 3);
  assert.ok(ref.rgb.equals(rgbOf(crop(fb, 3, 2, 6, 4))));
});

png('a framebuffer whose bytes are not 4-aligned is encoded as truecolour, the same pixels', () => {
  const fb = fewColours(8, 8, 2);
  const shifted = Buffer.alloc(fb.data.length + 1).subarray(1);
  fb.data.copy(shifted);
  const ref = referenceDecode(encodePng({ ...fb, data: shifted }));
  assert.is(ref.colourType, 2);
  assert.ok(ref.rgb.equals(rgbOf(fb.data)));
});

png('rejects rectangles outside the framebuffer', () => {
  const fb = sample(10, 10);
  assert.throws(() => encodePng(fb, { x: 5, y: 5, w: 6, h: 1 }), /outside/);
  assert.throws(() => encodePng(fb, { x: 0, y: 0, w: 0, h: 1 }), /outside/);
});

// How fast it encodes is measured by `npm run bench` (desktop), not asserted here.
png('a 1280x800 screen-like frame encodes small and decodes to the same pixels', () => {
  const width = 1280, height = 800;
  const data = Buffer.alloc(width * height * 4, 255);
  // Text-like dark runs; alpha stays 255, as in every framebuffer.
  for (let y = 0; y < height; y += 16) {
    for (let x = 0; x < width; x += 8) for (let p = 0; p < 3; p++) data.fill(0, ((y * width + x + p) * 4), (y * width + x + p) * 4 + 3);
  }
  const file = encodePng({ width, height, data });
  assert.ok(file.length < 200_000, `${file.length} bytes`);
  assert.ok(decodeOwnPng(file).data.equals(data));
});

png.run();
