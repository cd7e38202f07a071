// The window under a person's click, looked up while their pointer and the screen rest before it rather than
// at the click. A lookup asks the X server about the windows under the point (a few requests on the server's own
// X connection; it once ran xwininfo, a new X client). Made at the click, it ran while the desktop drew the click's
// answer and held that up: xterm's Ctrl+click menu reached our viewer 1.2-1.4x as late as noVNC's in the desktop
// bench, ~0.9x without the lookup. A person rests the pointer on what they then click, so what was under it then is the answer,
// unless the screen changed there since: a window that comes or goes under the pointer redraws the pixels
// around it and beyond. A change that stays within POINTER_REACH of it is the pointer itself (Xvnc paints it
// into the picture, and its shape changes as it crosses windows), or something as small.
import type { Copy, Desktop, Rect } from '../desktop/index.ts';

/** How long the pointer (no button held) and the screen stay still, after it moved or let go, before the lookup. */
export const REST_MS = 60;
/** How far from the pointer a change may reach and still be the pointer's own (cursors are up to 64 px). */
export const POINTER_REACH = 64;

type Point = { x: number; y: number };
/** Where the rest is timed (tests pass a clock of their own). */
export type Timers = { setTimeout: (fn: () => void, ms: number) => unknown; clearTimeout: (id: unknown) => void };
const realTimers: Timers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout) };

export class HoverLookup {
  private timer: unknown = null;
  /** Where the pointer is, while no button is held. */
  private pointer: Point | null = null;
  private rested: (Point & { title: Promise<string | null> }) | null = null;
  private watched: { desktop: Desktop; off: () => void } | null = null;

  constructor(private desktop: () => Desktop | null, private timers: Timers = realTimers) {}

  /** A pointer event of the person in control (RFB button mask). */
  moved(x: number, y: number, mask: number): void {
    this.watch();
    if (mask) {
      this.pointer = null; // a button is down: the pointer does not rest
      this.stopTimer();
      return;
    }
    if (this.pointer?.x === x && this.pointer.y === y) return;
    this.pointer = { x, y };
    if (this.rested && (this.rested.x !== x || this.rested.y !== y)) this.rested = null;
    this.restart();
  }

  /** The title of the window under a click at (x, y): what rested there, when the screen there did not change since, else asked now. */
  windowAt(x: number, y: number): Promise<string | null> | null {
    const rested = this.rested;
    if (rested && rested.x === x && rested.y === y) return rested.title;
    return this.desktop()?.windowAt?.(x, y) ?? null;
  }

  /** The take-over ended. */
  dispose(): void {
    this.stopTimer();
    this.watched?.off();
    this.watched = null;
    this.rested = null;
  }

  /** Follows the screen of the desktop running now (a restarted desktop is a new one). */
  private watch(): void {
    const desktop = this.desktop();
    if (this.watched?.desktop === desktop) return;
    this.watched?.off();
    this.watched = null;
    this.rested = null;
    if (!desktop) return;
    const changed = (rects: Rect[], copies: Copy[] = []) => this.changed(rects, copies);
    desktop.on('update', changed);
    this.watched = { desktop, off: () => desktop.off('update', changed) };
  }

  /** A change forgets what rested where it reaches past the pointer, and postpones a lookup to come; it starts none. */
  private changed(rects: Rect[], copies: Copy[]): void {
    const rested = this.rested;
    if (rested) {
      const moved = copies.map((c) => ({ x: c.dx, y: c.dy, w: c.src.w, h: c.src.h }));
      if ([...rects, ...moved].some((r) => reachesPast(r, rested))) this.rested = null;
    }
    if (this.timer) this.restart();
  }

  private restart(): void {
    this.stopTimer();
    this.timer = this.timers.setTimeout(() => this.rest(), REST_MS);
  }

  private stopTimer(): void {
    if (this.timer) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  private rest(): void {
    this.timer = null;
    const desktop = this.watched?.desktop;
    if (!this.pointer || !desktop?.windowAt) return;
    const { x, y } = this.pointer;
    this.rested = { x, y, title: desktop.windowAt(x, y) };
  }
}

/** Whether a changed rectangle comes within POINTER_REACH of p and reaches farther than that. */
export function reachesPast(r: Rect, p: Point): boolean {
  const [left, top, right, bottom] = [p.x - POINTER_REACH, p.y - POINTER_REACH, p.x + POINTER_REACH, p.y + POINTER_REACH];
  const near = r.x < right && r.x + r.w > left && r.y < bottom && r.y + r.h > top;
  const within = r.x >= left && r.x + r.w <= right && r.y >= top && r.y + r.h <= bottom;
  return near && !within;
}
