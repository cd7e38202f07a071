// How the Guacamole display draws `img` streams, without three waits of guacamole-common-js 1.5.0 that
// cost a typed character part of an animation frame or more:
// - it decodes with createImageBitmap(Blob): the Blob is registered, read back and decoded elsewhere, each
//   step coming back as a task of its own, which a busy page runs late (a one-glyph image: 12 ms median,
//   up to 78 ms, on a page busy every frame; 0.3 ms as an Image from a data: URI);
// - a frame waits for each image's load event, a task that often runs after the next animation frame
//   although the image was ready before it;
// - a ready frame is drawn in the next requestAnimationFrame callback, not at once (drawAtOnce).
// Here each image is an Image from a data: URI (the base64 blobs are only joined: the gateway cuts them at
// multiples of 4 characters), drawn by an ordinary display task, and a frame goes to the display once its
// images are complete. Chromium completes a data: image within the task that set it, so the frame is
// drawn within that task, like a client that decodes as messages arrive (noVNC); other browsers wait for
// the load events, as before. Small rectangles come as raw RGB, put on the layer with no decode.
import Guacamole from 'guacamole-common-js';

/** A transparent pixel: what a broken image becomes, since the canvas throws on a broken image. */
const BLANK = 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

export function drawImagesFromDataUris(display: Guacamole.Display): void {
  /** Images that queued display tasks will draw. */
  let queued: HTMLImageElement[] = [];
  /** Frames reach the display in order, each once the images queued before it can be drawn. */
  let previous: Promise<void> = Promise.resolve();

  display.drawStream = (layer, x, y, stream, mimetype) => {
    const raw = RAW_RGB.exec(mimetype);
    if (raw) return drawRawRgb(display, layer, x, y, stream, Number(raw[1]));
    const reader = new Guacamole.DataURIReader(stream, mimetype);
    reader.onend = () => {
      const image = new Image();
      image.onerror = () => (image.src = BLANK);
      image.src = reader.getURI();
      queued.push(image);
      display.drawImage(layer, x, y, image);
    };
  };

  const flush = display.flush.bind(display);
  display.flush = (callback, timestamp, frames) => {
    previous = previous
      .then(async () => {
        // Waiting lets later instructions queue too; they join this frame, so their images count as well.
        for (let waiting; (waiting = queued.filter((image) => !drawable(image))).length; ) await Promise.all(waiting.map(loadOf));
        queued = [];
        drawAtOnce(() => flush(callback && (() => afterPaint(callback)), timestamp, frames));
      })
      .catch((error) => console.error('desktop frame not drawn', error));
  };
}

/**
 * Runs the library's flush so that it draws the frame now, as noVNC draws as messages arrive. The library
 * draws at once when the page has no focus (its syncFlush) and otherwise waits for the next animation frame,
 * whose callbacks run before that frame paints: the same frame shows the change either way, but drawn in its
 * callbacks it shows later in it, and never while the page gets no frames. The desktop bench measured the
 * change seen ~1.5 ms later that way. So for this call only, the page is said to have no focus.
 */
function drawAtOnce(flush: () => void): void {
  document.hasFocus = () => false;
  try {
    flush();
  } finally {
    delete (document as { hasFocus?: unknown }).hasFocus; // Document.prototype's again
  }
}

/**
 * Runs `fn` (the frame's sync answer) once the browser has painted what was drawn: in a task queued from the
 * next animation frame, or after 100 ms in a page that gets none (hidden). Sent before, the answer's
 * WebSocket send came between the draw and the paint.
 */
function afterPaint(fn: () => void): void {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    fn();
  };
  const timer = setTimeout(run, 100);
  requestAnimationFrame(() => setTimeout(run, 0));
}

/** Small rectangles come as raw RGB (server/desktop/view/raw-rgb.ts): no decode to wait for. */
const RAW_RGB = /^image\/x-raw-rgb;width=(\d+)$/;

/**
 * Queues the pixels as a display task like any image, so that they land in order with the frame's other
 * drawing; the layer's task then puts them on its canvas with putImageData. Not through a canvas of their
 * own: a new canvas per rectangle (its context, its first put, then drawImage from it) cost a typed
 * character ~0.25 ms in headless Chromium here, against ~0.05 ms for putImageData on the layer.
 */
function drawRawRgb(display: Guacamole.Display, layer: Guacamole.Layer, x: number, y: number, stream: Guacamole.InputStream, width: number) {
  const chunks: string[] = [];
  stream.onblob = (data) => chunks.push(data);
  stream.onend = () => {
    const bytes = fromBase64(chunks.join(''));
    const height = Math.floor(bytes.length / 3 / width);
    if (!width || !height) return;
    const pixels = layer.getCanvas().getContext('2d')!.createImageData(width, height);
    const out = pixels.data;
    for (let i = 0, o = 0; o < out.length; i += 3, o += 4) {
      out[o] = bytes[i];
      out[o + 1] = bytes[i + 1];
      out[o + 2] = bytes[i + 2];
      out[o + 3] = 255;
    }
    putsRawPixels(layer);
    rawPixels.add(pixels);
    display.drawImage(layer, x, y, pixels as unknown as CanvasImageSource);
  };
}

const rawPixels = new WeakSet<object>();
const putting = new WeakSet<Guacamole.Layer>();

/**
 * Teaches the layer's drawImage (what the display's task calls) to put raw pixels. They are opaque, so
 * putImageData gives what drawImage would over them (the `img` instruction's mask is "over"). The library
 * does not learn that the layer is no longer empty, which matters only to a resize keeping its picture:
 * the gateway sends the whole screen, as PNG, first and after every resize.
 */
function putsRawPixels(layer: Guacamole.Layer): void {
  if (putting.has(layer)) return;
  putting.add(layer);
  const draw = layer.drawImage.bind(layer);
  layer.drawImage = (x, y, image) => {
    if (!rawPixels.has(image)) return draw(x, y, image);
    const pixels = image as unknown as ImageData;
    if (layer.autosize) layer.resize(Math.max(layer.width, x + pixels.width), Math.max(layer.height, y + pixels.height));
    layer.getCanvas().getContext('2d')!.putImageData(pixels, x, y);
  };
}

/** Base64 to bytes: natively where the browser can (Chromium 140+, Firefox 133+, Safari 18.2+). */
function fromBase64(text: string): Uint8Array {
  const native = (Uint8Array as { fromBase64?: (text: string) => Uint8Array }).fromBase64;
  if (native) return native(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const drawable = (image: HTMLImageElement) => image.complete && image.naturalWidth > 0;
const loadOf = (image: HTMLImageElement) => new Promise((resolve) => image.addEventListener('load', resolve, { once: true }));
