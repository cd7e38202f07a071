// Records an agent's desktop during a run as an Apache Guacamole session recording (what guacamole-common-js's
// Guacamole.SessionRecording plays): frames of `img` PNGs closed by `sync <ms>`, gzip-compressed and streamed to a
// file (gzip-file.ts). Changes grow a dirty region; a frame goes after a throttle that keeps the PNG encodes within
// a share of one core, and at once when the runner asks (frameNow, right after an action). An unchanged screen
// writes nothing. Always PNG, never the live gateway's raw RGB, so any Guacamole player plays the file. It leaves
// out the pointer, sound and the clipboard; copies are recorded as the pixels they changed.
// node:timers, not the globals: a DOM environment (happy-dom in tests) replaces those with timers that cannot unref.
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { coalesce, encode, encodePngAsync, type Copy, type Desktop, type Rect } from '../desktop/index.ts';
import { isOutOfSpace } from '../system/out-of-space.ts';
import { GzipFile, OverQuota } from './gzip-file.ts';

export type RecorderStop = 'finished' | 'disk_full' | 'quota' | 'desktop_closed' | 'error';

export type RecorderOptions = {
  desktop: Desktop;
  /** The file to write (its folder exists); created exclusively (wx), mode 0o600. */
  path: string;
  /** A full-screen keyframe at least this often while the screen changes. @default 30000 */
  keyframeMs?: number;
  /** Minimum ms between two frames. @default 100 */
  minIntervalMs?: number;
  /** Share of one core the encodes may use: after a frame whose encode took t ms, the next waits t / cpuShare ms. @default 0.03 */
  cpuShare?: number;
  /** How often what was written is flushed through gzip (Z_SYNC_FLUSH) to the file: a crash loses at most this. @default 2000 */
  flushMs?: number;
  /** Asked before each flush to the file with the compressed bytes the file would then have in total; false stops the recording with 'quota'. */
  fits?: (totalBytes: number) => boolean | Promise<boolean>;
  /** Called once when the recording stops by itself (disk full, quota, desktop closed, a write error). */
  onStopped?: (reason: RecorderStop, message: string) => void;
  /** For tests of a failing disk: the write stream factory. @default fs.createWriteStream */
  createWriteStream?: typeof import('node:fs').createWriteStream;
  now?: () => number;
};

export type RecordingResult = { bytes: number; durationMs: number; reason: RecorderStop; activity: [number, number][] };

const DEFAULTS = { keyframeMs: 30_000, minIntervalMs: 100, cpuShare: 0.03, flushMs: 2000 };
/** Base64 characters per `blob`: a multiple of 4 (each blob decodes on its own), as the live gateway sends them. */
const BLOB_CHARS = 8064;
/** Frames closer than this belong to one span of activity (what playback's "skip idle" keeps). */
const ACTIVITY_GAP_MS = 2000;
/** Image streams go on layer 0 with channel mask 14 (GUAC_COMP_OVER: the PNG replaces what was there). */
const LAYER = 0;
const MASK = 14;

/** The part of `r` inside a width × height screen, in whole pixels; null when nothing is (NaN, outside, empty). */
function clip(r: Rect, width: number, height: number): Rect | null {
  const x = Math.max(0, Math.floor(r.x));
  const y = Math.max(0, Math.floor(r.y));
  const right = Math.min(width, Math.ceil(r.x + r.w));
  const bottom = Math.min(height, Math.ceil(r.y + r.h));
  return right > x && bottom > y ? { x, y, w: right - x, h: bottom - y } : null;
}

function reasonFor(err: Error): RecorderStop {
  return err instanceof OverQuota ? 'quota' : isOutOfSpace(err) ? 'disk_full' : 'error';
}

export class RunRecorder {
  readonly startedAt: number;
  private readonly o: Required<Pick<RecorderOptions, 'keyframeMs' | 'minIntervalMs' | 'cpuShare' | 'flushMs'>> & RecorderOptions;
  private readonly desktop: Desktop;
  private readonly file: GzipFile;
  private readonly now: () => number;
  private dirty: Rect[] = [];
  private needsFull = true;
  /** The screen size the file last gave (a `size`); a frame of another size gives it again, with the whole screen. */
  private sized = { width: -1, height: -1 };
  /** The last full-screen image, on the recording's clock (`now`, its sync times): keyframes are spaced in its time. */
  private lastFullAt = -Infinity;
  /** No throttled frame before this (performance.now()). */
  private nextAt = 0;
  private lastTs = 0;
  private activity: [number, number][] = [];
  /** Frames run one after another: the one in progress, then those queued behind it. */
  private frames: Promise<void> = Promise.resolve();
  private queued = 0;
  private wroteSinceFlush = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly flushTimer: NodeJS.Timeout;
  private reason: RecorderStop | null = null;
  private ending: Promise<RecordingResult> | null = null;
  private readonly detach: () => void;

  static start(o: RecorderOptions): RunRecorder {
    return new RunRecorder(o);
  }

  private constructor(o: RecorderOptions) {
    this.o = {
      ...o,
      keyframeMs: o.keyframeMs ?? DEFAULTS.keyframeMs,
      minIntervalMs: o.minIntervalMs ?? DEFAULTS.minIntervalMs,
      cpuShare: o.cpuShare ?? DEFAULTS.cpuShare,
      flushMs: o.flushMs ?? DEFAULTS.flushMs,
    };
    this.desktop = o.desktop;
    this.now = o.now ?? Date.now;
    this.file = new GzipFile(o.path, {
      fits: o.fits,
      createWriteStream: o.createWriteStream,
      onFailure: (err) => this.halt(reasonFor(err), err.message),
    });
    // The desktop's events never throw back into it: every handler only notes and schedules.
    const onUpdate = (rects: unknown, copies: unknown) => this.note(rects, copies);
    const onResize = () => {
      this.needsFull = true;
      this.dirty = [];
      this.schedule();
    };
    const onClosed = () => this.halt('desktop_closed', 'the desktop stopped');
    this.desktop.on('update', onUpdate);
    this.desktop.on('resize', onResize);
    this.desktop.on('closed', onClosed);
    this.detach = () => {
      this.desktop.off('update', onUpdate);
      this.desktop.off('resize', onResize);
      this.desktop.off('closed', onClosed);
    };
    this.flushTimer = setInterval(() => void this.flush(), this.o.flushMs).unref();
    // The first frame runs now, not queued: its pixels are copied before start() returns, and its sync is the start.
    this.startedAt = this.now();
    this.queued = 1;
    this.frames = this.frame(true, false, this.startedAt).finally(() => this.frameDone());
  }

  /** Compressed bytes written to the file so far. */
  get bytes(): number {
    return this.file.bytes;
  }

  get stopped(): RecorderStop | null {
    return this.reason;
  }

  /** Writes what changed since the last frame now, past the throttle; resolves once the frame is written to gzip. */
  frameNow(): Promise<void> {
    return this.reason ? this.frames : this.enqueue(true);
  }

  /** Ends the recording: last frame, gzip end, file closed. Idempotent. */
  stop(): Promise<RecordingResult> {
    if (!this.ending) {
      this.reason = 'finished';
      this.ending = this.finish(true);
    }
    return this.ending;
  }

  private note(rects: unknown, copies: unknown): void {
    if (this.reason) return;
    const { width, height } = this.desktop;
    const add = (r: Rect | null) => r && this.dirty.push(r);
    if (Array.isArray(rects)) for (const r of rects as Rect[]) add(r && clip(r, width, height));
    // A copy's destination changed; recorded as its pixels, not as a `copy`, so the file never depends on
    // the order in which a player applies copies and images.
    if (Array.isArray(copies)) for (const c of copies as Copy[]) add(c?.src && clip({ x: c.dx, y: c.dy, w: c.src.w, h: c.src.h }, width, height));
    if (this.dirty.length > 256) this.dirty = coalesce(this.dirty, { maxRects: 32 });
    this.schedule();
  }

  /** A throttled frame once the throttle allows, unless one is on its way (its end schedules the next). */
  private schedule(): void {
    if (this.reason || this.timer || this.queued || (!this.dirty.length && !this.needsFull)) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.enqueue(false);
    }, Math.max(0, this.nextAt - performance.now()));
    this.timer.unref();
  }

  private enqueue(now: boolean): Promise<void> {
    this.queued++;
    this.frames = this.frames.then(() => this.frame(now)).finally(() => this.frameDone());
    return this.frames;
  }

  private frameDone(): void {
    if (--this.queued === 0) this.schedule();
  }

  /** Writes one frame of what changed (nothing when nothing did); never rejects: a failure stops the recording. */
  private async frame(now: boolean, closing = false, at = this.now()): Promise<void> {
    if (this.reason && !closing) return;
    if (!now && performance.now() < this.nextAt) return; // a timer that fired early: the frame's end reschedules
    try {
      await this.writeFrame(at);
    } catch (err) {
      this.halt('error', `a frame could not be recorded: ${(err as Error).message}`);
    }
  }

  /** `size` when it changed, the changed rectangles as PNGs, `sync` at `at` (the moment the pixels are copied). */
  private async writeFrame(at: number): Promise<void> {
    const fb = this.desktop.framebuffer();
    const { width, height } = fb;
    if (!width || !height) return;
    const started = performance.now();
    const resized = width !== this.sized.width || height !== this.sized.height;
    // Keyframes follow the recording's own clock (its sync times), which a seek moves along.
    const keyframe = resized || this.needsFull || (this.dirty.length > 0 && at - this.lastFullAt >= this.o.keyframeMs);
    const rects = keyframe ? [{ x: 0, y: 0, w: width, h: height }] : coalesce(this.dirty.map((r) => clip(r, width, height)).filter((r) => r !== null));
    this.dirty = [];
    this.needsFull = false;
    if (!rects.length) return;
    this.sized = { width, height };
    if (rects.some((r) => r.w === width && r.h === height)) this.lastFullAt = at;
    const ts = Math.max(at, this.lastTs + 1); // strictly increasing, as a player orders frames by them
    this.lastTs = ts;
    // Every encode copies its pixels before the first await: the frame is one moment of the screen.
    const pngs = await Promise.all(rects.map((r) => encodePngAsync(fb, r, { level: 6 })));
    const parts = [resized ? encode('size', LAYER, width, height) : ''];
    rects.forEach((r, stream) => {
      // One stream per image of the frame; each is ended before the frame's sync, so the next frame reuses them.
      parts.push(encode('img', stream, MASK, LAYER, 'image/png', r.x, r.y));
      const data = pngs[stream].toString('base64');
      for (let i = 0; i < data.length; i += BLOB_CHARS) parts.push(encode('blob', stream, data.slice(i, i + BLOB_CHARS)));
      parts.push(encode('end', stream));
    });
    parts.push(encode('sync', ts));
    await this.file.write(parts.join(''));
    this.wroteSinceFlush = true;
    // The throttle counts the whole frame (encodes and gzip) as its cost, wall-clock: on a busy machine that
    // over-counts, so frames get sparser, never costlier.
    const done = performance.now();
    this.nextAt = Math.max(started + this.o.minIntervalMs, done + (done - started) / this.o.cpuShare);
    const span = this.activity.at(-1);
    if (span && ts - span[1] < ACTIVITY_GAP_MS) span[1] = ts;
    else this.activity.push([ts, ts]);
  }

  private async flush(): Promise<void> {
    if (!this.wroteSinceFlush || this.reason) return;
    this.wroteSinceFlush = false;
    await this.file.flush();
  }

  /** Stops by itself: reported once through onStopped, whatever happens after. */
  private halt(reason: RecorderStop, message: string): void {
    if (this.reason) return;
    this.reason = reason;
    this.ending = this.finish(false);
    try {
      this.o.onStopped?.(reason, message);
    } catch {
      // The caller's handler failing must not leave the recorder half-stopped.
    }
  }

  /**
   * Detaches from the desktop and waits for the frame in progress. A healthy file then gets the last frame (stop()),
   * a closing sync (so the recording lasts until now, even if the screen stood still) and the gzip end; after a
   * failure the file is only closed, with what it holds.
   */
  private async finish(lastFrame: boolean): Promise<RecordingResult> {
    this.detach();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    clearInterval(this.flushTimer);
    await this.frames;
    const healthy = this.reason === 'finished' || this.reason === 'desktop_closed';
    if (healthy && !this.file.failure) {
      if (lastFrame) await this.frame(true, true);
      const at = this.now();
      if (at > this.lastTs) {
        this.lastTs = at;
        await this.file.write(encode('sync', at));
      }
      await this.file.end();
    } else await this.file.abort();
    // A failure while ending (the disk filled on the last bytes) is what the recording stopped with.
    if (this.file.failure && healthy) this.reason = reasonFor(this.file.failure);
    return { bytes: this.file.bytes, durationMs: Math.max(0, this.lastTs - this.startedAt), reason: this.reason!, activity: this.activity };
  }
}
