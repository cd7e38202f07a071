// Input gating for one viewer: mouse and keys reach the desktop only from the viewer holding control.
// What gets through is also emitted as 'input' for recordings and published, thinned out, as action
// events (clicks, scrolls, moves at most every 100 ms, keys every 250 ms) for the agent cursor feed.
import { GuacProtocolError } from './codec.ts';
import type { ActionEvent, SessionPort } from './ports.ts';

const MOVE_EVENT_MS = 100;
const KEY_EVENT_MS = 250;

export class InputGate {
  /** Buttons held, as the last mouse instruction said. */
  private mask = 0;
  private lastMoveEvent = 0;
  private lastKeyEvent = 0;

  constructor(private session: SessionPort, private userId: number, private hasControl: () => boolean) {}

  private get desktop() {
    return this.session.desktop;
  }

  /** True when a button changed: the person waits to see what it does. */
  mouse(x: number, y: number, mask: number): boolean {
    if (!this.hasControl()) return false;
    const { width, height } = this.desktop;
    const pressed = mask & ~this.mask;
    const buttons = mask !== this.mask;
    const moved = !this.desktop.cursor || this.desktop.cursor().x !== x || this.desktop.cursor().y !== y;
    this.mask = mask;
    this.desktop.pointer(x, y, mask);
    this.session.gateway.emit('input', this.desktop.agentId, { kind: 'mouse', x, y, mask, at: Date.now(), userId: this.userId });
    const fx = frac(x, width);
    const fy = frac(y, height);
    const now = Date.now();
    if (pressed & 7) {
      const button = pressed & 1 ? 'left' : pressed & 4 ? 'right' : 'middle';
      this.action({ kind: 'click', x: fx, y: fy, source: 'user', button });
    } else if (pressed & 24) {
      this.action({ kind: 'scroll', x: fx, y: fy, source: 'user', direction: pressed & 8 ? 'up' : 'down' });
    } else if (moved && now - this.lastMoveEvent >= MOVE_EVENT_MS) {
      this.lastMoveEvent = now;
      this.action({ kind: 'move', x: fx, y: fy, source: 'user' });
    }
    return buttons;
  }

  /** True when the key reached the desktop. */
  key(keysym: number, pressed: string | undefined): boolean {
    if (!this.hasControl()) return false;
    const down = pressed === '1' || pressed === 'true';
    if (!down && pressed !== '0' && pressed !== 'false') throw new GuacProtocolError('key: pressed must be 1 or 0');
    this.desktop.key(keysym, down);
    const now = Date.now();
    this.session.gateway.emit('input', this.desktop.agentId, { kind: 'key', keysym, down, at: now, userId: this.userId });
    if (down && now - this.lastKeyEvent >= KEY_EVENT_MS) {
      this.lastKeyEvent = now;
      const c = this.desktop.cursor?.() ?? { x: 0, y: 0 };
      this.action({ kind: 'key', x: frac(c.x, this.desktop.width), y: frac(c.y, this.desktop.height), source: 'user' });
    }
    return true;
  }

  /** A viewer that leaves while holding buttons lets them go, so the desktop is not left mid-drag. */
  release(): void {
    if (this.mask && this.hasControl()) this.desktop.pointer(this.desktop.cursor?.().x ?? 0, this.desktop.cursor?.().y ?? 0, 0);
  }

  private action(event: ActionEvent): void {
    this.session.gateway.publish(`agent:${this.desktop.agentId}:actions`, event);
  }
}

/** A pixel position as a fraction of the screen (0 = first pixel, 1 = last), as performAction reports it. */
function frac(v: number, size: number): number {
  const f = size > 1 ? v / (size - 1) : 0;
  return f < 0 ? 0 : f > 1 ? 1 : f;
}
