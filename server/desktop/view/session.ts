// The viewers of one running desktop: they share its framebuffer (and the PNG encodes of one version of
// it), its sound and its control, which one viewer at most holds.
import { STATUS } from './codec.ts';
import type { GatewayPort, SessionPort, ViewerPort } from './ports.ts';
import { encodePngAsync } from '../rfb/png.ts';
import type { Copy } from '../rfb/desktop.ts';
import type { Desktop, Rect } from '../types.ts';

export class DesktopSession<V extends ViewerPort = ViewerPort> implements SessionPort {
  readonly viewers = new Set<V>();
  controller: V | null = null;
  disposed = false;
  /** Counts framebuffer changes; encodes are shared between viewers for the same version. */
  version = 0;
  private pngs = new Map<string, Promise<string>>();
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

  /** Base64 PNG of a rectangle of the current framebuffer; the pixels are copied before this returns. */
  png(rect: Rect): Promise<string> {
    const key = `${rect.x},${rect.y},${rect.w},${rect.h}`;
    let p = this.pngs.get(key);
    if (!p) {
      p = encodePngAsync(this.desktop.framebuffer(), rect).then((b) => b.toString('base64'));
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
    if (this.controller === viewer) this.setController(null);
    if (this.viewers.size === 0) this.dispose();
  }

  setController(viewer: V | null): void {
    const previous = this.controller;
    if (previous === viewer) return;
    this.controller = viewer;
    previous?.controlChanged(false);
    viewer?.controlChanged(true);
    this.onControl(viewer);
  }

  private dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.off();
    this.release?.();
    this.onDispose();
  }
}
