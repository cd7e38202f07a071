// What the gateway's parts see of each other: the gateway as a session uses it, a session as its viewers
// use it, and a viewer as its session drives it. Declared here, below all of them, so that gateway,
// session, viewer, frames and input import one another in one direction only.
import type { Copy } from '../rfb/desktop.ts';
import type { Desktop, DesktopInput, Rect } from '../types.ts';
import type { Bus } from '../../realtime/bus.ts';

export type GatewayOptions = {
  /** Minimum ms between frames to one viewer. @default 66 (≈15 fps) */
  frameInterval?: number;
  /** How long after the viewer's input frames skip that interval. @default INPUT_ANSWER_MS (250) */
  answerWindow?: number;
  /** Send `nop` after this many ms without an instruction. @default 5000 */
  nopInterval?: number;
  /** Hold frames while the socket has more than this many bytes unsent. @default 1 MiB */
  maxBuffered?: number;
  /** Blob size in base64 characters (guacd's 6048-byte limit). @default 8064 */
  blobChars?: number;
  /** Ticket lifetime in ms. @default 60 s */
  ticketTtl?: number;
};

/** Who holds control of a desktop: taken by a viewer, released on purpose, or a lease that ran out (session.ts). */
export type ControlEvent = { userId: number; state: 'taken' | 'released' | 'expired' };

export type GatewayPort = {
  readonly options: Required<GatewayOptions>;
  publish: Bus['publish'];
  log(msg: string): void;
  emit(event: 'input', agentId: number, input: DesktopInput): boolean;
  emit(event: 'control', agentId: number, control: ControlEvent): boolean;
};

export interface ViewerPort {
  readonly userId: number;
  start(): void;
  note(rects: Rect[], copies: Copy[]): void;
  resized(): void;
  sendClipboard(text: string): void;
  sendAudio(mimetype: string, pcm: Buffer): void;
  controlChanged(control: boolean): void;
  fail(status: number, message: string, closeCode?: number): void;
}

export interface SessionPort {
  readonly gateway: GatewayPort;
  readonly desktop: Desktop;
  readonly controller: ViewerPort | null;
  /** Base64 PNG of a rectangle of the current framebuffer. */
  png(rect: Rect): Promise<string>;
  /** The controller's input reached the desktop: what the viewers are sent for a while answers it. */
  answering(): void;
  remove(viewer: ViewerPort): void;
  /** Gives control back to `viewer` when nobody controls the desktop and its person's lease holds it; whether it did. */
  takeBack(viewer: ViewerPort): boolean;
}
