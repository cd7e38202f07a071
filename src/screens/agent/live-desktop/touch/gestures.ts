// Touch on the live desktop as gestures (issue 47): one finger taps (a click), holds still (a right click) or
// drags (a left-button drag); two fingers drag (the wheel) or pinch (the view's zoom, which the caller applies).
// Pure: the caller feeds finger positions (client pixels) and times, runs the long-press timer, and turns
// what comes back into mouse states and a transform. Three fingers and more are ignored.

export type Point = { x: number; y: number };

/** The pointer's state to send: where it is (client pixels) and which buttons are down. */
export type MouseAction = { kind: 'mouse'; at: Point; left: boolean; right: boolean; up: boolean; down: boolean };
export type ZoomAction =
  | { kind: 'zoom-start'; mid: Point; distance: number }
  | { kind: 'zoom'; mid: Point; distance: number }
  | { kind: 'zoom-end' };
export type GestureAction = MouseAction | ZoomAction;

export type GestureOptions = {
  /** A finger that moves less than this is still a tap or a long press. @default 10 */
  slop: number;
  /** Held this long without moving: a right click. @default 500 */
  longPressMs: number;
  /** A second tap this soon and this near clicks where the first did (a double click the desktop sees). */
  doubleTapMs: number;
  doubleTapSlop: number;
  /** The fingers' distance changed this much: a pinch, not a two-finger drag. @default 24 */
  pinchSlop: number;
  /** Two fingers moved this far together: one wheel click. @default 20 */
  wheelStep: number;
};

export const GESTURE_DEFAULTS: GestureOptions = {
  slop: 10, longPressMs: 500, doubleTapMs: 400, doubleTapSlop: 24, pinchSlop: 24, wheelStep: 20,
};

type Phase =
  | { name: 'idle' }
  | { name: 'pending'; start: Point; at: number }
  | { name: 'drag' }
  | { name: 'two'; mid: Point; distance: number }
  | { name: 'scroll'; lastY: number; carry: number }
  | { name: 'pinch' }
  /** The gesture is over (a long press, a finger lifted from two): nothing more until every finger is up. */
  | { name: 'done' };

const mouse = (at: Point, buttons: Partial<Omit<MouseAction, 'kind' | 'at'>> = {}): MouseAction => ({
  kind: 'mouse', at, left: false, right: false, up: false, down: false, ...buttons,
});
const distance = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);
const midpoint = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });

export class GestureRecognizer {
  private readonly options: GestureOptions;
  private readonly fingers = new Map<number, Point>();
  private phase: Phase = { name: 'idle' };
  private lastTap: { at: Point; time: number } | null = null;

  constructor(options: Partial<GestureOptions> = {}) {
    this.options = { ...GESTURE_DEFAULTS, ...options };
  }

  /** Whether a long press is being timed (the caller then calls longPress() after longPressMs). */
  get waitingForLongPress(): boolean {
    return this.phase.name === 'pending';
  }

  down(id: number, at: Point, time: number): GestureAction[] {
    if (this.fingers.size >= 2) return []; // a third finger: ignored
    this.fingers.set(id, at);
    const { phase } = this;
    if (this.fingers.size === 1) {
      this.phase = phase.name === 'idle' ? { name: 'pending', start: at, at: time } : { name: 'done' };
      return [];
    }
    if (phase.name === 'pending') {
      const [a, b] = [...this.fingers.values()];
      this.phase = { name: 'two', mid: midpoint(a, b), distance: distance(a, b) };
      return [];
    }
    // A second finger during a drag ends the drag: the button goes up where the first finger is.
    const out = phase.name === 'drag' ? [mouse(this.fingers.values().next().value!)] : [];
    this.phase = { name: 'done' };
    return out;
  }

  /** Fingers moved: all that moved at once (one touchmove), so two fingers are judged together, not one by one. */
  move(moved: { id: number; at: Point }[]): GestureAction[] {
    let changed = false;
    for (const { id, at } of moved) {
      if (!this.fingers.has(id)) continue;
      this.fingers.set(id, at);
      changed = true;
    }
    if (!changed) return [];
    const { phase, options } = this;
    const [a, b] = [...this.fingers.values()];
    switch (phase.name) {
      case 'pending':
        if (distance(phase.start, a) < options.slop) return [];
        this.phase = { name: 'drag' };
        return [mouse(phase.start), mouse(phase.start, { left: true }), mouse(a, { left: true })];
      case 'drag':
        return [mouse(a, { left: true })];
      case 'two': {
        const mid = midpoint(a, b);
        const now = distance(a, b);
        const spread = Math.abs(now - phase.distance);
        const travel = distance(mid, phase.mid);
        // A pinch changes the fingers' distance more than it moves their midpoint (one finger may stay still);
        // a two-finger drag moves the midpoint and hardly changes the distance.
        if (spread >= options.pinchSlop || (spread >= options.slop && spread >= travel)) {
          this.phase = { name: 'pinch' };
          return [{ kind: 'zoom-start', mid: phase.mid, distance: phase.distance }, { kind: 'zoom', mid, distance: now }];
        }
        if (travel < options.slop) return [];
        this.phase = { name: 'scroll', lastY: phase.mid.y, carry: 0 };
        return [mouse(phase.mid), ...this.scroll(mid)];
      }
      case 'scroll':
        return this.scroll(midpoint(a, b));
      case 'pinch':
        return [{ kind: 'zoom', mid: midpoint(a, b), distance: distance(a, b) }];
      default:
        return [];
    }
  }

  up(id: number, time: number): GestureAction[] {
    const at = this.fingers.get(id);
    if (!at) return [];
    this.fingers.delete(id);
    const { phase } = this;
    let out: GestureAction[] = [];
    if (phase.name === 'pending') out = this.tap(phase.start, time);
    else if (phase.name === 'drag') out = [mouse(at)];
    else if (phase.name === 'pinch') out = [{ kind: 'zoom-end' }];
    this.phase = this.fingers.size ? { name: 'done' } : { name: 'idle' };
    return out;
  }

  /** The system took the touch away (a scroll of the page, an alert): let go of what is held, click nothing. */
  cancel(id: number): GestureAction[] {
    const at = this.fingers.get(id);
    if (!at) return [];
    this.fingers.delete(id);
    const { phase } = this;
    const out: GestureAction[] = phase.name === 'drag' ? [mouse(at)] : phase.name === 'pinch' ? [{ kind: 'zoom-end' }] : [];
    this.phase = this.fingers.size ? { name: 'done' } : { name: 'idle' };
    return out;
  }

  /** The long-press timer ran out: a finger still held where it went down is a right click there. */
  longPress(time: number): GestureAction[] {
    const { phase } = this;
    if (phase.name !== 'pending' || time - phase.at < this.options.longPressMs) return [];
    this.phase = { name: 'done' };
    this.lastTap = null;
    return [mouse(phase.start), mouse(phase.start, { right: true }), mouse(phase.start)];
  }

  private tap(at: Point, time: number): MouseAction[] {
    const { lastTap, options } = this;
    const second = lastTap && time - lastTap.time <= options.doubleTapMs && distance(lastTap.at, at) <= options.doubleTapSlop;
    const where = second ? lastTap.at : at;
    // A third quick tap is a new first one (a triple click would need the desktop's timing, not ours).
    this.lastTap = second ? null : { at, time };
    return [mouse(where), mouse(where, { left: true }), mouse(where)];
  }

  /** Fingers moving up scroll the desktop down, as a page follows the finger on a phone. */
  private scroll(mid: Point): MouseAction[] {
    const phase = this.phase as Extract<Phase, { name: 'scroll' }>;
    phase.carry += mid.y - phase.lastY;
    phase.lastY = mid.y;
    const out: MouseAction[] = [];
    const step = this.options.wheelStep;
    while (Math.abs(phase.carry) >= step) {
      const down = phase.carry < 0;
      phase.carry += down ? step : -step;
      out.push(mouse(mid, { down, up: !down }), mouse(mid));
    }
    return out;
  }
}
