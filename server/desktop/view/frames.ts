// Flow control of one viewer's picture: changes only grow the viewer's dirty region, and the next frame
// (coalesced dirty rectangles as PNG, or raw RGB when small; replayable CopyRects as copy; closed by sync)
// waits for the viewer's sync ack, a minimum interval and a drained socket. A slow viewer gets fewer,
// coalesced frames, not a queue. For a while after the viewer's own input (INPUT_ANSWER_MS), what answers it
// skips the interval, and a second frame may go before the first is acked: a click's answer is often two
// updates (the pointer's shape at once, a menu ~10 ms later), and the second waited 4-16 ms for the first's ack,
// which the page sends once it has painted. Meanwhile the session deflates PNGs for speed (session.png): a
// Ctrl+click's xterm menu took 3-6 ms from the update to the frame at level 6.
import { encode } from './codec.ts';
import { RAW_MAX_PIXELS, rawRgb, rawRgbMimetype } from './raw-rgb.ts';
import type { SessionPort } from './ports.ts';
import { coalesce } from '../rfb/rects.ts';
import type { Copy } from '../rfb/desktop.ts';
import type { Rect } from '../types.ts';

export type FrameSink = {
  session: SessionPort;
  /** Bytes the socket has not sent yet. */
  buffered: () => number;
  send: (data: string) => void;
  nextStream: () => number;
  closed: () => boolean;
};

export class FramePump {
  private dirty: Rect[] = [];
  private copies: Copy[] = [];
  private needsSize = true;
  /** The sync timestamps of the frames in flight, oldest first, until the viewer acks them. */
  private awaiting: string[] = [];
  private flushing = false;
  /** Cancels the scheduled flush, if one is. */
  private cancel: (() => void) | null = null;
  private lastFrameAt = 0;
  /** Until when frames answer the viewer's input and skip the interval. */
  private answeringUntil = 0;
  private lastTs = 0;

  constructor(private sink: FrameSink) {}

  private get options() {
    return this.sink.session.gateway.options;
  }

  private get desktop() {
    return this.sink.session.desktop;
  }

  /** Everything again, starting with the size (first frame, resize). */
  resized(): void {
    this.redrawAll(0);
  }

  private redrawAll(delay: number): void {
    this.needsSize = true;
    this.copies = [];
    this.dirty = [{ x: 0, y: 0, w: this.desktop.width, h: this.desktop.height }];
    this.schedule(delay);
  }

  /**
   * Records an update. Copies are replayable only while nothing is pending before them: once pixels are
   * dirty, the viewer's canvas no longer matches the copy's source, so the destination becomes dirty too.
   */
  note(rects: Rect[], copies: Copy[]): void {
    for (const c of copies) {
      if (this.dirty.length === 0) this.copies.push(c);
      else this.dirty.push({ x: c.dx, y: c.dy, w: c.src.w, h: c.src.h });
    }
    this.dirty.push(...rects);
    if (this.dirty.length > 256) this.dirty = coalesce(this.dirty, { maxRects: 32 });
    this.schedule(0);
  }

  /** The viewer's `sync` answer: the frame it names, and those before it, have been drawn. */
  ack(ts: string | undefined): void {
    const at = this.awaiting.indexOf(ts ?? '');
    if (at < 0) return;
    this.awaiting.splice(0, at + 1);
    this.schedule(0);
  }

  /** The viewer's input reached the desktop: for a while, frames go without waiting out the frame interval. */
  hurry(): void {
    this.answeringUntil = Date.now() + this.options.answerWindow;
    this.sink.session.answering();
    this.cancel?.();
    this.cancel = null;
    this.schedule(0);
  }

  dispose(): void {
    this.cancel?.();
    this.cancel = null;
  }

  /**
   * Flushes after `delay` ms, or with none once the current callback and its promises are done: every
   * update parsed from one socket chunk is in by then (the RFB client parses a chunk within its data
   * event), so they coalesce. Not setImmediate: that waits for every other I/O callback of this loop
   * turn, and a zero timer for ≥ 1 ms.
   */
  private schedule(delay: number): void {
    if (this.sink.closed() || this.cancel) return;
    let cancelled = false;
    const run = () => {
      if (cancelled) return;
      this.cancel = null;
      void this.flush();
    };
    if (delay > 0) {
      const timer = setTimeout(run, delay);
      this.cancel = () => clearTimeout(timer);
    } else {
      process.nextTick(run);
      this.cancel = () => (cancelled = true);
    }
  }

  private async flush(): Promise<void> {
    const answering = Date.now() < this.answeringUntil;
    if (this.sink.closed() || this.flushing || this.awaiting.length >= (answering ? 2 : 1)) return;
    if (!this.needsSize && !this.copies.length && !this.dirty.length) return;
    if (this.sink.buffered() > this.options.maxBuffered) return this.schedule(50);
    const wait = answering ? 0 : this.lastFrameAt + this.options.frameInterval - Date.now();
    if (wait > 0) return this.schedule(wait);

    this.flushing = true;
    const { width, height } = this.desktop;
    let head = this.needsSize ? encode('size', 0, width, height) : '';
    const copies = this.copies;
    const rects = coalesce(this.dirty).filter((r) => r.x + r.w <= width && r.y + r.h <= height);
    this.copies = [];
    this.dirty = [];
    this.needsSize = false;
    // Start every encode now: each copies its pixels synchronously, so the frame is one consistent moment.
    const fb = this.desktop.framebuffer();
    const raw = rects.map((r) => r.w * r.h <= RAW_MAX_PIXELS);
    const pending = rects.map((r, i) => (raw[i] ? rawRgb(fb, r) : this.sink.session.png(r)));
    let images: string[];
    try {
      // Raw rectangles are ready now: a frame of only those goes out without yielding (see schedule).
      images = pending.every((p) => typeof p === 'string') ? (pending as string[]) : await Promise.all(pending);
    } catch (err) {
      this.sink.session.gateway.log(`desktop ${this.desktop.agentId}: frame encode failed: ${(err as Error).message}`);
      this.flushing = false;
      // Not at once: a flush with no delay never yields to I/O, and an encode that keeps failing would spin.
      this.redrawAll(this.options.frameInterval || 50);
      return;
    }
    if (this.sink.closed()) return;
    for (const c of copies) head += encode('copy', 0, c.src.x, c.src.y, c.src.w, c.src.h, 14, 0, c.dx, c.dy);
    const parts = [head];
    const chunk = this.options.blobChars;
    rects.forEach((r, i) => {
      const stream = this.sink.nextStream();
      parts.push(encode('img', stream, 14, 0, raw[i] ? rawRgbMimetype(r.w) : 'image/png', r.x, r.y));
      const data = images[i];
      for (let at = 0; at < data.length; at += chunk) parts.push(encode('blob', stream, data.slice(at, at + chunk)));
      parts.push(encode('end', stream));
    });
    // Strictly increasing, so an ack always names the frame it belongs to.
    const ts = Math.max(Date.now(), this.lastTs + 1);
    this.lastTs = ts;
    parts.push(encode('sync', ts));
    this.awaiting.push(String(ts));
    this.lastFrameAt = Date.now();
    this.flushing = false;
    this.sink.send(parts.join(''));
  }
}
