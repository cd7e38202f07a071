// Input gating for one viewer: mouse and keys reach the desktop only from the viewer holding control.
// What gets through is also emitted as 'input' for recordings. It is not published on the action feed:
// that feed moves the agent's cursor, and a person in control has the real pointer (publishing every key
// and move cost the bus, the feed's sockets and each page work on the path from a key to its echo).
import { GuacProtocolError } from './codec.ts';
import type { SessionPort } from './ports.ts';

export class InputGate {
  /** Buttons held, as the last mouse instruction said (released when the viewer leaves). */
  private mask = 0;

  constructor(
    private session: SessionPort, private userId: number, private hasControl: () => boolean,
    /** Takes control back for this viewer when its person's lease holds it (a reloaded page's first input). */
    private takeBack: () => boolean = () => false,
  ) {}

  private controls(): boolean {
    return this.hasControl() || this.takeBack();
  }

  private get desktop() {
    return this.session.desktop;
  }

  /** True when the mouse reached the desktop. */
  mouse(x: number, y: number, mask: number): boolean {
    if (!this.controls()) return false;
    this.mask = mask;
    this.desktop.pointer(x, y, mask);
    this.session.gateway.emit('input', this.desktop.agentId, { kind: 'mouse', x, y, mask, at: Date.now(), userId: this.userId });
    return true;
  }

  /** True when the key reached the desktop. */
  key(keysym: number, pressed: string | undefined): boolean {
    if (!this.controls()) return false;
    const down = pressed === '1' || pressed === 'true';
    if (!down && pressed !== '0' && pressed !== 'false') throw new GuacProtocolError('key: pressed must be 1 or 0');
    this.desktop.key(keysym, down);
    this.session.gateway.emit('input', this.desktop.agentId, { kind: 'key', keysym, down, at: Date.now(), userId: this.userId });
    return true;
  }

  /** A viewer that leaves while holding buttons lets them go, so the desktop is not left mid-drag. */
  release(): void {
    if (this.mask && this.hasControl()) this.desktop.pointer(this.desktop.cursor?.().x ?? 0, this.desktop.cursor?.().y ?? 0, 0);
  }
}
