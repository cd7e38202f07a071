// A Desktop on top of one RFB connection: the framebuffer for viewers and screenshots, input for the
// controlling user and the agent, activity tracking for the idle stop. Providers (xvnc, vnc) add how the
// connection is made, how files reach the desktop, and what stopping means.
import { EventEmitter } from 'node:events';
import { encodePngAsync } from './png.ts';
import { intersects } from './rects.ts';
import { keysymsForText } from './keysyms.ts';
import type { RfbClient, RfbOp, RfbTarget } from './client.ts';
import type { DesktopSound } from '../start/sound.ts';
import type { Desktop, DesktopSoundSource, FocusedField, FocusedWindow, Framebuffer, Rect } from '../types.ts';

export type Copy = { src: Rect; dx: number; dy: number };

export type RfbDesktopHooks<S extends DesktopSoundSource = DesktopSound> = {
  putFile?: (sourcePath: string, name: string) => Promise<string>;
  /** Ends the desktop for good (kills Xvnc, or just disconnects from a remote server). */
  stop?: () => Promise<void>;
  /** Frame cap while viewers watch, and while nobody does (ms). @default 66 / 200 */
  frameInterval?: { watched: number; unwatched: number };
  /** The desktop's sound, when it has a sound server (or, relayed, when the holder's desktop has one). */
  sound?: S | null;
  /** Where a second RFB connection to the same desktop opens (the fleet's relay serves other instances with it). */
  target?: RfbTarget;
  /** The holding instance's address, when this desktop is another instance's, relayed. */
  relayedFrom?: string;
  /** The title of the window under a point, when the desktop can tell. */
  windowAt?: (x: number, y: number) => Promise<string | null>;
  /** The focused field of the browser the server started (its DevTools pipe), and the focused window. */
  focusedField?: () => Promise<FocusedField | null>;
  focusedWindow?: () => Promise<FocusedWindow | null>;
  /** Resolves once the desktop's apps are up (or failed to start, which is logged); absent: it has none to wait for. */
  ready?: Promise<void>;
  /** Stops and resumes every process of the desktop (its cgroup's freezer); absent or null: it never sleeps. */
  freezer?: DesktopFreezer | null;
  /** What must reach the disk before the freeze (the browser's cookies: the home is checkpointed asleep); never rejects. */
  beforeSleep?: () => Promise<void>;
};

export type DesktopFreezer = { freeze(): Promise<boolean>; thaw(): void };

/** S: the sound's type, a local sound server's (the default) or one relayed from another instance. */
export class RfbDesktop<S extends DesktopSoundSource = DesktopSound> extends EventEmitter implements Desktop {
  /** Time of the last input (viewer or agent), clipboard or file, or of the last viewer leaving. */
  lastActivity = Date.now();
  private holders = 0;
  private pngCache: { version: number; png: Promise<Buffer> } | null = null;
  private cursorPos = { x: 0, y: 0 };
  private buttons = 0;
  private stopped = false;
  private sleeping = false;
  /** Its sleep is under way (the browser's cookies being written): a second one waits for nothing. */
  private fallingAsleep = false;
  private sleptAt = 0;
  private frameInterval: { watched: number; unwatched: number };
  readonly sound: S | undefined;
  /** See RfbDesktopHooks.ready: a run's first action waits for it. */
  readonly ready: Promise<void>;
  /** Present when the desktop can tell (an Xvnc desktop of ours), as the Desktop interface says. */
  readonly focusedField?: () => Promise<FocusedField | null>;
  readonly focusedWindow?: () => Promise<FocusedWindow | null>;

  constructor(readonly agentId: number, readonly rfb: RfbClient, private hooks: RfbDesktopHooks<S> = {}) {
    super();
    // Asking a sleeping desktop's browser or X server wakes it first (they would not answer frozen).
    const { focusedField, focusedWindow } = hooks;
    if (focusedField) this.focusedField = () => (this.touch(), focusedField());
    if (focusedWindow) this.focusedWindow = () => (this.touch(), focusedWindow());
    this.setMaxListeners(0); // one listener set per viewer session and per watcher
    this.frameInterval = hooks.frameInterval ?? { watched: 66, unwatched: 200 };
    this.sound = hooks.sound ?? undefined;
    this.ready = hooks.ready ?? Promise.resolve();
    rfb.setFrameInterval(this.frameInterval.unwatched);
    this.cursorPos = { x: Math.floor(rfb.width / 2), y: Math.floor(rfb.height / 2) };
    rfb.on('update', (ops: RfbOp[]) => this.onOps(ops));
    rfb.on('resize', (w: number, h: number) => this.emit('resize', w, h));
    rfb.on('clipboard', (text: string) => this.emit('clipboard', text));
    rfb.on('close', (error?: Error) => {
      if (this.stopped) return void this.emit('closed');
      this.emit('closed', error ?? new Error('desktop connection closed'));
      // A desktop the server lost (its Xvnc gone, or the connection dropped from inside: vncconfig -disconnect)
      // is ended whole, every process and its network, so nothing of it runs on untracked; it starts again
      // only when someone needs it.
      void this.stop().catch(() => {});
    });
  }

  get width(): number {
    return this.rfb.width;
  }

  get height(): number {
    return this.rfb.height;
  }

  /** Bumped on every framebuffer change. */
  get version(): number {
    return this.rfb.updates;
  }

  get lastUpdateAt(): number {
    return this.rfb.lastUpdateAt;
  }

  get closed(): boolean {
    return this.rfb.closed;
  }

  get viewers(): number {
    return this.holders;
  }

  get target(): RfbTarget | undefined {
    return this.hooks.target;
  }

  /** The holding instance's address when this desktop runs on another instance; undefined when it runs here. */
  get relayedFrom(): string | undefined {
    return this.hooks.relayedFrom;
  }

  framebuffer(): Framebuffer {
    return { width: this.rfb.width, height: this.rfb.height, data: this.rfb.fb };
  }

  /**
   * Splits an RFB update into pixel rects and copies such that "apply the copies in order, then paint the
   * rects from the current framebuffer" gives the same picture: a copy whose source an earlier rect of the
   * same update changed cannot be replayed, so its destination becomes a rect.
   */
  private onOps(ops: RfbOp[]): void {
    const rects: Rect[] = [];
    const copies: Copy[] = [];
    for (const op of ops) {
      if (op.kind === 'rect') rects.push({ x: op.x, y: op.y, w: op.w, h: op.h });
      else {
        const src = { x: op.sx, y: op.sy, w: op.w, h: op.h };
        if (rects.some((r) => intersects(r, src))) rects.push({ x: op.x, y: op.y, w: op.w, h: op.h });
        else copies.push({ src, dx: op.x, dy: op.y });
      }
    }
    this.emit('update', rects, copies);
  }

  cursor(): { x: number; y: number } {
    return { ...this.cursorPos };
  }

  pointer(x: number, y: number, buttonMask: number): void {
    this.cursorPos = { x: clamp(Math.round(x), 0, this.width - 1), y: clamp(Math.round(y), 0, this.height - 1) };
    this.buttons = buttonMask;
    this.touch();
    this.rfb.pointer(this.cursorPos.x, this.cursorPos.y, buttonMask);
  }

  key(keysym: number, down: boolean): void {
    this.touch();
    this.rfb.key(keysym, down);
  }

  async typeText(text: string): Promise<void> {
    let i = 0;
    for (const keysym of keysymsForText(text)) {
      this.key(keysym, true);
      this.key(keysym, false);
      // Keysyms outside the keymap make Xvnc remap a spare keycode per character; give the X client time
      // to read each remapping, and yield now and then on long ASCII runs.
      if (keysym > 0xff && keysym < 0xff00) await sleep(8);
      else if (++i % 64 === 0) await sleep(1);
    }
  }

  async setClipboard(text: string): Promise<void> {
    this.touch();
    this.rfb.setClipboard(text);
  }

  /** PNG of the current framebuffer, encoded once per framebuffer version. */
  screenshot(): Promise<Buffer> {
    const version = this.version;
    if (this.pngCache?.version !== version) {
      const png = encodePngAsync(this.framebuffer());
      this.pngCache = { version, png };
      png.catch(() => (this.pngCache = null));
    }
    return this.pngCache.png;
  }

  /** The PNG of the whole current picture when it is encoded already (a sleeping desktop's is), else null. */
  encodedScreen(): Promise<Buffer> | null {
    return this.pngCache?.version === this.version ? this.pngCache.png : null;
  }

  /** Resolves once no update arrived for `quietMs` (and at least `quietMs` passed), or after `maxMs`. */
  async settle(quietMs = 150, maxMs = 1500, afterInput = true): Promise<void> {
    const start = Date.now();
    for (;;) {
      const now = Date.now();
      if (now - start >= maxMs) return;
      // After input the screen may still change because of it: count the quiet from now. Either way
      // the server must hold our update request (a change waiting behind the frame cap is not quiet).
      const quietSince = afterInput ? Math.max(start, this.lastUpdateAt) : this.lastUpdateAt;
      if (now - quietSince >= quietMs && this.rfb.current) return;
      await sleep(Math.max(5, Math.min(quietMs - (now - quietSince), maxMs - (now - start)) + 1));
    }
  }

  /** The title of the window under (x, y); null when there is none or this desktop cannot tell. */
  windowAt(x: number, y: number): Promise<string | null> {
    this.touch();
    return this.hooks.windowAt?.(x, y).catch(() => null) ?? Promise.resolve(null);
  }

  async putFile(sourcePath: string, name: string): Promise<string> {
    if (!this.hooks.putFile) throw new Error('This desktop cannot receive files');
    this.touch();
    return this.hooks.putFile(sourcePath, name);
  }

  /** Keeps the desktop from stopping while held (a viewer is connected); call the result to let go. */
  hold(): () => void {
    this.touch();
    this.holders++;
    this.rfb.setFrameInterval(this.frameInterval.watched);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders--;
      this.touch();
      if (this.holders === 0) this.rfb.setFrameInterval(this.frameInterval.unwatched);
    };
  }

  /** Marks a use: activity for the idle clock, and a sleeping desktop wakes for it. */
  touch(): void {
    this.lastActivity = Date.now();
    if (this.sleeping) this.wake();
  }

  /** Whether it can sleep at all (its cgroup has a freezer). */
  get canSleep(): boolean {
    return !!this.hooks.freezer;
  }

  get asleep(): boolean {
    return this.sleeping;
  }

  /**
   * Freezes every process of the desktop: memory kept, no CPU. The framebuffer stays here, so viewers and
   * screenshots see the screen as it was. Any use (touch, hold) wakes it. False when it could not freeze.
   * Events: 'sleep', then 'wake' (ms asleep).
   */
  async sleep(): Promise<boolean> {
    const freezer = this.hooks.freezer;
    if (!freezer || this.sleeping || this.fallingAsleep || this.stopped || this.holders > 0) return false;
    const used = this.lastActivity;
    this.fallingAsleep = true; // one at a time: a second flush of the browser's cookies would only slow the first
    await this.hooks.beforeSleep?.().finally(() => (this.fallingAsleep = false));
    // Used meanwhile (a viewer came, an action ran): it stays awake.
    if (this.stopped || this.holders > 0 || this.lastActivity !== used || this.sleeping) return false;
    this.sleeping = true;
    this.sleptAt = Date.now();
    if (!(await freezer.freeze())) {
      this.sleeping = false;
      return false;
    }
    if (!this.sleeping) return false; // woken while freezing (wake thawed it)
    void this.screenshot().catch(() => {}); // the picture the viewer who wakes it gets first, encoded now
    this.emit('sleep');
    return true;
  }

  /** Thaws the desktop at once (one write to its cgroup); the next frame follows from Xvnc. */
  wake(): void {
    if (!this.sleeping) return;
    this.sleeping = false;
    this.hooks.freezer?.thaw();
    this.emit('wake', Date.now() - this.sleptAt);
  }

  /** Releases pressed buttons, then ends the desktop. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.wake(); // a frozen program cannot end
    this.stopped = true;
    if (this.buttons && !this.rfb.closed) this.rfb.pointer(this.cursorPos.x, this.cursorPos.y, 0);
    this.rfb.close();
    await this.hooks.stop?.();
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
