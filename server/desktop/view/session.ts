// The viewers of one running desktop: they share its framebuffer (and the PNG encodes of one version of
// it), its sound and its control, which one viewer at most holds. Control is a lease of its person: when the
// controlling viewer's tunnel ends (a reload, a dropped socket) nobody controls the desktop, but the lease holds
// for 30 s (kept per desktop, so it outlives a session whose last viewer left), and a new viewer of that person
// takes control back without it being handed back; only an explicit release or the lease running out does that
// (gateway 'control' events).
import { STATUS } from './codec.ts';
import type { GatewayPort, SessionPort, ViewerPort } from './ports.ts';
import { encodePngAsync } from '../rfb/png.ts';
import type { Copy } from '../rfb/desktop.ts';
import type { Desktop, Rect } from '../types.ts';

/** Control held for a person whose controlling viewer went away, per desktop, until it expires. */
const leases = new Map<Desktop, { userId: number; timer: NodeJS.Timeout }>();

/** Ends the desktop's lease, if any; whose it was. */
function endLease(desktop: Desktop): number | null {
  const lease = leases.get(desktop);
  if (!lease) return null;
  clearTimeout(lease.timer);
  leases.delete(desktop);
  return lease.userId;
}

export class DesktopSession<V extends ViewerPort = ViewerPort> implements SessionPort {
  /** How long control stays with its person after their viewer's tunnel ended (tests shorten it). */
  static leaseMs = 30_000;
  readonly viewers = new Set<V>();
  controller: V | null = null;
  disposed = false;
  /** Counts framebuffer changes; encodes are shared between viewers for the same version. */
  version = 0;
  private pngs = new Map<string, Promise<string>>();
  /** Until when the pictures answer the controller's input (see png). */
  private answeringUntil = 0;
  private release: (() => void) | null = null;
  private off: () => void;

  constructor(
    readonly gateway: GatewayPort,
    readonly desktop: Desktop,
    private onDispose: () => void,
    /** Called after control changed hands here (the gateway tells other instances). */
    private onControl: (controller: V | null) => void = () => {},
  ) {
    const onUpdate = (rects: Rect[], copies: Copy[]) => {
      this.changed();
      for (const v of this.viewers) v.note(rects, copies);
    };
    const onResize = () => {
      this.changed();
      for (const v of this.viewers) v.resized();
    };
    const onClipboard = (text: string) => {
      for (const v of this.viewers) v.sendClipboard(text);
    };
    const onClosed = () => {
      endLease(desktop); // a desktop that stopped has nothing to come back to
      for (const v of [...this.viewers]) v.fail(STATUS.UPSTREAM_UNAVAILABLE, 'The desktop stopped', 1011);
      this.dispose();
    };
    desktop.on('update', onUpdate);
    desktop.on('resize', onResize);
    desktop.on('clipboard', onClipboard);
    desktop.on('closed', onClosed);
    const sound = desktop.sound;
    const offSound = sound?.listen((chunk) => {
      for (const v of this.viewers) v.sendAudio(sound.mimetype, chunk);
    });
    this.off = () => {
      offSound?.();
      desktop.off('update', onUpdate);
      desktop.off('resize', onResize);
      desktop.off('clipboard', onClipboard);
      desktop.off('closed', onClosed);
    };
    this.release = desktop.hold?.() ?? null;
  }

  private changed(): void {
    this.version++;
    this.pngs.clear();
  }

  /** The controller's input reached the desktop (the answer window starts again). */
  answering(): void {
    this.answeringUntil = Date.now() + this.gateway.options.answerWindow;
  }

  /**
   * Base64 PNG of a rectangle of the current framebuffer; the pixels are copied before this returns. While it
   * answers the controller's input, deflated at level 1 rather than 6 (xterm's menu, indexed: ~3.5x faster,
   * 6 KB against 3.3), for every viewer: one encode they all share, whichever of them asks first.
   */
  png(rect: Rect): Promise<string> {
    const key = `${rect.x},${rect.y},${rect.w},${rect.h}`;
    let p = this.pngs.get(key);
    if (!p) {
      const level = Date.now() < this.answeringUntil ? 1 : 6;
      const { desktop } = this;
      // The whole screen already encoded (a desktop going to sleep encodes it then): the first frame of the viewer
      // who wakes it needs no encode.
      const whole = rect.x === 0 && rect.y === 0 && rect.w === desktop.width && rect.h === desktop.height;
      const kept = whole ? desktop.encodedScreen?.() : null;
      p = (kept ?? encodePngAsync(desktop.framebuffer(), rect, { level })).then((b) => b.toString('base64'));
      this.pngs.set(key, p);
      p.catch(() => this.pngs.delete(key));
    }
    return p;
  }

  add(viewer: V): void {
    this.viewers.add(viewer);
    viewer.start();
  }

  remove(viewer: ViewerPort): void {
    this.viewers.delete(viewer as V);
    if (this.controller === viewer) {
      this.controller = null;
      endLease(this.desktop);
      const { desktop, gateway } = this;
      const timer = setTimeout(() => {
        const userId = endLease(desktop);
        if (userId !== null) gateway.emit('control', desktop.agentId, { userId, state: 'expired' });
      }, DesktopSession.leaseMs);
      timer.unref();
      leases.set(desktop, { userId: viewer.userId, timer });
      this.onControl(null); // other instances see nobody in control; the lease is this instance's
    }
    if (this.viewers.size === 0) this.dispose();
  }

  setController(viewer: V | null): void {
    const previous = this.controller;
    if (previous === viewer) return;
    const leased = endLease(this.desktop);
    this.controller = viewer;
    previous?.controlChanged(false);
    viewer?.controlChanged(true);
    const agentId = this.desktop.agentId;
    if (viewer) this.gateway.emit('control', agentId, { userId: viewer.userId, state: 'taken' });
    else if (previous || leased) this.gateway.emit('control', agentId, { userId: (previous?.userId ?? leased)!, state: 'released' });
    this.onControl(viewer);
  }

  /**
   * A viewer of the person whose lease holds control (their page reloaded in control mode) takes it back at its first
   * input: the page sends input as soon as its tunnel connects, while its own request for control is still on the way,
   * and input from a viewer without control is dropped (the first keys typed after a reload reached neither the
   * desktop nor the hand-back log).
   */
  takeBack(viewer: ViewerPort): boolean {
    if (this.controller || !this.viewers.has(viewer as V) || leases.get(this.desktop)?.userId !== viewer.userId) return false;
    this.setController(viewer as V);
    return true;
  }

  /** Whether control is held for `userId` (by a viewer or a lease). */
  heldBy(userId: number): boolean {
    return this.controller?.userId === userId || leases.get(this.desktop)?.userId === userId;
  }

  private dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.off();
    this.release?.();
    this.onDispose();
  }
}
