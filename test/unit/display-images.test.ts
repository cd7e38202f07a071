import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Guacamole from 'guacamole-common-js';
import { drawImagesFromDataUris } from '../../src/screens/agent/live-desktop/display-images.ts';

// An Image the test completes: like Chromium's, a data: image is complete after a microtask unless the
// test holds it; a held one completes (or breaks) when the test says, with its load/error event.
class FakeImage extends EventTarget {
  static hold = false;
  static all: FakeImage[] = [];
  complete = false;
  naturalWidth = 0;
  onerror: (() => void) | null = null;
  private url = '';

  constructor() {
    super();
    FakeImage.all.push(this);
  }

  get src(): string {
    return this.url;
  }

  set src(url: string) {
    this.url = url;
    this.complete = false;
    if (!FakeImage.hold || url.startsWith('data:image/gif')) queueMicrotask(() => this.finish(true));
  }

  finish(ok: boolean): void {
    this.complete = true;
    this.naturalWidth = ok ? 10 : 0;
    if (ok) this.dispatchEvent(new Event('load'));
    else this.onerror?.();
  }
}

type Stream = { onblob: ((data: string) => void) | null; onend: (() => void) | null };

function fakeDisplay() {
  const log: string[] = [];
  const display = {
    drawImage: (_layer: unknown, x: number, y: number, image: FakeImage) => log.push(`draw ${x},${y} ${image.src}`),
    flush: (callback?: () => void) => {
      log.push('flush');
      callback?.();
    },
    drawStream: () => {},
  };
  drawImagesFromDataUris(display as unknown as Guacamole.Display);
  return { display: display as unknown as Guacamole.Display, log };
}

/** Sends one img stream (as Guacamole.Client does: drawStream, then the blobs, then end). */
function image(display: Guacamole.Display, x: number, blobs: string[]): void {
  const stream: Stream = { onblob: null, onend: null };
  display.drawStream({} as Guacamole.Layer, x, 0, stream as unknown as Guacamole.InputStream, 'image/png');
  for (const b of blobs) stream.onblob?.(b);
  stream.onend?.();
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

const test = suite('desktop display: images from data: URIs');
let RealImage: unknown;
const realRequestAnimationFrame = window.requestAnimationFrame;
/** Animation frames the page asked for: none comes unless a test runs it (a focused page that is not painting yet). */
let animationFrames: FrameRequestCallback[] = [];

test.before.each(() => {
  reset();
  RealImage = (globalThis as any).Image;
  (globalThis as any).Image = FakeImage;
  FakeImage.hold = false;
  FakeImage.all = [];
  animationFrames = [];
  window.requestAnimationFrame = (callback) => animationFrames.push(callback);
});

test.after.each(() => {
  (globalThis as any).Image = RealImage;
  window.requestAnimationFrame = realRequestAnimationFrame;
});

test('an img stream becomes a display task drawing its joined base64 as a data: URI, queued at its end', () => {
  const { display, log } = fakeDisplay();
  image(display, 5, ['iVBO', 'Rw0K']);
  assert.equal(log, ['draw 5,0 data:image/png;base64,iVBORw0K']);
});

test('a frame whose images complete within the task is handed to the display before any other task runs', async () => {
  const { display, log } = fakeDisplay();
  setTimeout(() => log.push('next task'), 0);
  image(display, 0, ['AAAA']);
  display.flush(() => {});
  await nextTask();
  assert.equal(log, ['draw 0,0 data:image/png;base64,AAAA', 'flush', 'next task']);
});

test('a frame waits for its images to load, and frames stay in order behind it', async () => {
  FakeImage.hold = true;
  const { display, log } = fakeDisplay();
  image(display, 0, ['AAAA']);
  display.flush(() => {});
  image(display, 1, ['BBBB']);
  display.flush(() => {});
  await nextTask();
  assert.not.ok(log.includes('flush'));
  // The second image joins the first frame when it is flushed, so the first frame waits for it too.
  FakeImage.all[0].finish(true);
  await nextTask();
  assert.not.ok(log.includes('flush'));
  FakeImage.all[1].finish(true);
  await nextTask();
  assert.equal(log.filter((l) => l === 'flush').length, 2);
});

test('the frame\'s sync answer goes once the page has painted it: in a task after the next animation frame', async () => {
  const { display, log } = fakeDisplay();
  image(display, 0, ['AAAA']);
  display.flush(() => log.push('sync answer'));
  await nextTask();
  assert.equal(log, ['draw 0,0 data:image/png;base64,AAAA', 'flush'], 'drawn, not answered before the paint');
  assert.is(animationFrames.length, 1);
  animationFrames[0](performance.now());
  assert.not.ok(log.includes('sync answer'), 'not within the animation frame either');
  await nextTask();
  assert.equal(log.filter((l) => l === 'sync answer'), ['sync answer']);
});

test('in a page that gets no animation frames (hidden), the sync answer goes after 100 ms, once', async () => {
  const { display, log } = fakeDisplay();
  image(display, 0, ['AAAA']);
  const flushed = performance.now();
  display.flush(() => log.push('sync answer'));
  while (!log.includes('sync answer') && performance.now() - flushed < 5000) await nextTask();
  assert.ok(log.includes('sync answer'), 'answered without an animation frame');
  // Timers may fire late on a loaded machine, never early.
  assert.ok(performance.now() - flushed >= 99, 'not before 100 ms');
  animationFrames[0](performance.now()); // the page shows again
  await nextTask();
  assert.equal(log.filter((l) => l === 'sync answer'), ['sync answer'], 'not answered twice');
});

test('a broken image is drawn as a blank pixel (the canvas would throw on it) and its frame completes', async () => {
  FakeImage.hold = true;
  const { display, log } = fakeDisplay();
  image(display, 0, ['!!!!']);
  display.flush(() => {});
  FakeImage.all[0].finish(false);
  await nextTask();
  assert.ok(log.includes('flush'));
  assert.match(FakeImage.all[0].src, /^data:image\/gif;base64,/);
  assert.is(FakeImage.all[0].naturalWidth, 10);
});

test('a raw RGB stream becomes a display task at its end, which puts its pixels on the layer; its frame goes at once', async () => {
  FakeImage.hold = true; // were it an image, the frame would wait
  const put: { x: number; y: number; width: number; height: number; data: number[] }[] = [];
  const context = {
    createImageData: (width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }),
    putImageData: (pixels: { width: number; height: number; data: Uint8ClampedArray }, x: number, y: number) =>
      put.push({ x, y, width: pixels.width, height: pixels.height, data: [...pixels.data] }),
  };
  const drawnOnLayer: unknown[] = [];
  const layer = {
    width: 4, height: 4, autosize: false,
    getCanvas: () => ({ getContext: () => context }),
    resize: () => assert.unreachable('a layer that does not grow is not resized'),
    drawImage: (x: number, y: number, image: unknown) => drawnOnLayer.push([x, y, image]),
  } as unknown as Guacamole.Layer;
  const tasks: unknown[][] = [];
  const flushed: string[] = [];
  const display = {
    drawImage: (...task: unknown[]) => tasks.push(task),
    flush: () => flushed.push('frame'),
    drawStream: () => {},
  } as unknown as Guacamole.Display;
  drawImagesFromDataUris(display);
  const stream: Stream = { onblob: null, onend: null };
  display.drawStream(layer, 3, 1, stream as unknown as Guacamole.InputStream, 'image/x-raw-rgb;width=2');
  const rgb = Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]).toString('base64');
  stream.onblob?.(rgb.slice(0, 8));
  stream.onblob?.(rgb.slice(8));
  assert.equal(tasks, [], 'nothing before the end of the stream');
  stream.onend?.();
  assert.is(tasks.length, 1, 'one display task, in order with the rest of the frame');
  assert.equal(put, [], 'nothing on the canvas before the display runs the task');
  // The display's task, as Guacamole.Display runs it.
  const [, x, y, pixels] = tasks[0] as [unknown, number, number, CanvasImageSource];
  layer.drawImage(x, y, pixels);
  assert.equal(put, [{ x: 3, y: 1, width: 2, height: 2, data: [1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255, 10, 11, 12, 255] }]);
  // Anything else the layer is asked to draw still goes to its own drawImage.
  const other = {} as CanvasImageSource;
  layer.drawImage(7, 8, other);
  assert.equal(drawnOnLayer, [[7, 8, other]]);
  display.flush(() => {});
  await nextTask();
  assert.equal(flushed, ['frame']);
  assert.is(FakeImage.all.length, 0, 'no image element to wait for');
});

test('raw pixels beyond a growing layer\'s size grow it first', () => {
  const sizes: number[][] = [];
  const layer = {
    width: 4, height: 4, autosize: true,
    getCanvas: () => ({ getContext: () => ({
      createImageData: (width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }),
      putImageData: (_: unknown, x: number, y: number) => sizes.push(['put', x, y] as never),
    }) }),
    resize(width: number, height: number) {
      sizes.push([width, height]);
    },
    drawImage: () => {},
  } as unknown as Guacamole.Layer;
  let task: unknown[] = [];
  const display = { drawImage: (...t: unknown[]) => (task = t), flush: () => {}, drawStream: () => {} } as unknown as Guacamole.Display;
  drawImagesFromDataUris(display);
  const stream: Stream = { onblob: null, onend: null };
  display.drawStream(layer, 3, 3, stream as unknown as Guacamole.InputStream, 'image/x-raw-rgb;width=2');
  stream.onblob?.(Buffer.alloc(12).toString('base64'));
  stream.onend?.();
  layer.drawImage(task[1] as number, task[2] as number, task[3] as CanvasImageSource);
  assert.equal(sizes, [[5, 5], ['put', 3, 3]]);
});

test('with the real Guacamole.Display, a ready frame is drawn at once, not in the next animation frame', async () => {
  // A focused page whose animation frames never come unless run: the library alone would wait for one.
  let owner = Object.getPrototypeOf(document);
  while (!Object.hasOwn(owner, 'hasFocus')) owner = Object.getPrototypeOf(owner);
  const hasFocus = Object.getOwnPropertyDescriptor(owner, 'hasFocus')!;
  owner.hasFocus = () => true;
  const canvas = HTMLCanvasElement.prototype as any;
  const getContext = canvas.getContext;
  const drawn: string[] = [];
  canvas.getContext = () => new Proxy({}, {
    get: (_, name) => (name === 'getImageData' ? () => ({ data: [] }) : name === 'drawImage' ? () => drawn.push('drawn') : () => {}),
  });
  try {
    const display = new Guacamole.Display();
    drawImagesFromDataUris(display);
    const source = document.createElement('canvas');
    display.drawImage(display.getDefaultLayer(), 0, 0, source);
    const answered: string[] = [];
    display.flush(() => answered.push('sync answer'));
    await nextTask();
    assert.equal(drawn, ['drawn'], 'drawn without an animation frame');
    assert.is(document.hasFocus(), true, 'the page reports its focus as before');
    // The one animation frame asked for is the sync answer's, after the paint.
    assert.equal(answered, []);
    assert.is(animationFrames.length, 1);
    animationFrames[0](performance.now());
    await nextTask();
    assert.equal(answered, ['sync answer']);
  } finally {
    Object.defineProperty(owner, 'hasFocus', hasFocus);
    canvas.getContext = getContext;
  }
});

test.run();
