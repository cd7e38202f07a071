// The one interface every part uses to reach an agent's virtual desktop: the viewer gateway,
// the screenshot endpoint and the runner's computer tool.
import type { EventEmitter } from 'node:events';
import type { Bus } from '../realtime/bus.ts';

export type Rect = { x: number; y: number; w: number; h: number };

/** RGBA pixels, 4 bytes per pixel, row-major; alpha is always 255. */
export type Framebuffer = { width: number; height: number; data: Buffer };

/**
 * A running desktop. Events:
 * - 'update' (rects: Rect[], copies: {src: Rect; dx: number; dy: number}[]) after each framebuffer update
 * - 'resize' (width, height)
 * - 'clipboard' (text) when the desktop's clipboard changes
 * - 'closed' (error?: Error) when the connection ends; the manager reconnects or restarts it
 */
export interface Desktop extends EventEmitter {
  readonly agentId: number;
  readonly width: number;
  readonly height: number;
  framebuffer(): Framebuffer;
  /** RFB PointerEvent; mask bits 1 left, 2 middle, 4 right, 8 wheel up, 16 wheel down. */
  pointer(x: number, y: number, buttonMask: number): void;
  /** RFB KeyEvent with an X11 keysym. */
  key(keysym: number, down: boolean): void;
  /** Types text (any Unicode) as key presses. */
  typeText(text: string): Promise<void>;
  setClipboard(text: string): Promise<void>;
  /** PNG of the current framebuffer. */
  screenshot(): Promise<Buffer>;
  /** The PNG of the whole current picture when one is encoded already, else null (then the caller encodes). */
  encodedScreen?(): Promise<Buffer> | null;
  /** Copies a file into the desktop user's ~/Desktop; returns the path inside the desktop. */
  putFile(sourcePath: string, name: string): Promise<string>;
  /** Where the pointer is, in screen pixels. */
  cursor?(): { x: number; y: number };
  /** The title of the window under a point (screen pixels), null for none; absent when the desktop cannot tell. */
  windowAt?(x: number, y: number): Promise<string | null>;
  /**
   * Resolves once the screen has not changed for quietMs (default 150), counted from the call when
   * afterInput (default) or from the last change otherwise, or after maxMs (default 1500).
   */
  settle?(quietMs?: number, maxMs?: number, afterInput?: boolean): Promise<void>;
  /** Keeps the desktop from idle-stopping while held (a connected viewer); call the result to let go. */
  hold?(): () => void;
  /** The desktop's sound, when it has a sound server: raw PCM of `mimetype`, audible chunks only. */
  readonly sound?: DesktopSoundSource;
  /** Resolves once its apps are up (a cold start shows its screen first); absent: nothing to wait for. */
  readonly ready?: Promise<void>;
  /**
   * What has the keyboard in the desktop's browser, asked over the DevTools pipe the server opened when it started
   * the browser (nothing in the desktop can reach it); null when no page of it has the focus. Absent: no such browser.
   */
  focusedField?(): Promise<FocusedField | null>;
  /** The window with the keyboard focus, as the desktop's X server tells (the desktop's programs can set both names). */
  focusedWindow?(): Promise<FocusedWindow | null>;
}

/** The focused field of the browser's focused page (server/desktop/start/browser-focus.ts). */
export type FocusedField = {
  origin: string;
  element: 'password' | 'text' | 'frame' | 'other';
  /** That element still has the focus, on the same origin, in a page that has the focus. */
  stillFocused(): Promise<boolean>;
  release(): Promise<void>;
};

export type FocusedWindow = { id: string; instance: string; className: string; title: string };

/**
 * One input event of the viewer holding control, as the gateway forwards it to the desktop (its 'input'
 * event): pointer position in screen pixels with the RFB button mask, or an X11 keysym going down or up.
 * `at` is Date.now() when it arrived; `userId` is the viewer's user.
 */
export type DesktopInput =
  | { kind: 'mouse'; x: number; y: number; mask: number; at: number; userId: number }
  | { kind: 'key'; keysym: number; down: boolean; at: number; userId: number };

export interface DesktopSoundSource {
  /** e.g. 'audio/L16;rate=44100,channels=2' (Guacamole's raw PCM types). */
  readonly mimetype: string;
  /** Calls back with PCM chunks while subscribed; call the result to stop. */
  listen(onChunk: (chunk: Buffer) => void): () => void;
}

export type DesktopStatus = { available: boolean; provider: 'xvnc' | 'vnc' | 'none'; reason?: string };

export interface Desktops {
  status(): DesktopStatus;
  /** Starts the agent's desktop on demand (or connects to its VNC endpoint) and returns it. */
  acquire(agentId: number): Promise<Desktop>;
  /** The running desktop, if any, without starting one. */
  running(agentId: number): Desktop | null;
  /** The running desktop wherever it runs (with a fleet: relayed from the instance holding it), without starting one. */
  find?(agentId: number): Promise<Desktop | null>;
  /** The running desktops (metrics, status). */
  list?(): Desktop[];
  stopAll(): Promise<void>;
  /** For a deleted agent: stops its desktop and removes what it kept on this machine (its home). */
  remove?(agentId: number): Promise<void>;
  /** Puts an uploaded file on the agent's desktop (its ~/Desktop) when the provider can; null when not. */
  putFile?(agentId: number, sourcePath: string, name: string): Promise<string | null>;
  /** Marks the agent's desktop as used by a run until the result is called: it is not stopped to make room meanwhile. */
  useForRun?(agentId: number): () => void;
}

/** Anthropic computer-use actions (docs/protocols.md §2.4); coordinates in screen pixels. */
export type ComputerAction =
  | { action: 'screenshot' }
  | { action: 'cursor_position' }
  | { action: 'mouse_move'; coordinate: [number, number] }
  | { action: 'left_click' | 'right_click' | 'middle_click' | 'double_click' | 'triple_click'; coordinate?: [number, number] }
  | { action: 'left_click_drag'; start_coordinate: [number, number]; coordinate: [number, number] }
  | { action: 'type'; text: string }
  | { action: 'key'; text: string } // xdotool-style names: 'Return', 'ctrl+l', 'alt+Tab'
  | { action: 'scroll'; coordinate?: [number, number]; scroll_direction: 'up' | 'down' | 'left' | 'right'; scroll_amount: number }
  | { action: 'wait'; duration: number }; // seconds

export type ActionResult = { screenshot?: Buffer; text?: string };

/**
 * Performs one action on the desktop, publishes `{kind, x, y}` (fractions of the screen) on
 * the bus topic `agent:<id>:actions`, and returns a fresh screenshot for actions that change
 * the screen. Implemented in server/desktop/actions.ts as `performAction`.
 */
export type PerformAction = (
  desktop: Desktop,
  action: ComputerAction,
  options: { publish: Bus['publish']; signal?: AbortSignal },
) => Promise<ActionResult>;
