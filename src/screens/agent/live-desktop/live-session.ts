// One viewer's connection to an agent's desktop: POST /agents/enter for a single-use tunnel, a
// Guacamole.Client over Guacamole.WebSocketTunnel, automatic reconnects (a fresh ticket each time), control
// requests that survive reconnects, and the clipboard in both directions with the library's Unicode bugs
// avoided (ArrayBufferWriter + TextEncoder out, BlobReader + TextDecoder in). Keep-alive is the library's:
// the tunnel pings every 500 ms (the server echoes), the client sends `nop` every 5 s.
// No DOM here beyond what guacamole-common-js creates; the view attaches the display element.
import Guacamole from 'guacamole-common-js';
import { normalizeError } from '../../../lib/http.ts';
import { enterDesktop, setControl, type Enter } from '../../../lib/desktop-api.ts';
import { playDesktopSound } from './desktop-sound.ts';
import { drawImagesFromDataUris } from './display-images.ts';

/** Guacamole.Client.State, by index (spec §4 "Viewer connection"). */
export const VIEWER_STATES = ['IDLE', 'CONNECTING', 'WAITING', 'CONNECTED', 'DISCONNECTING', 'DISCONNECTED'] as const;
export type ViewerState = (typeof VIEWER_STATES)[number];

export type LiveSessionEvents = {
  onState?: (state: ViewerState) => void;
  /** A client (with its display) was created; the previous one, if any, is gone. */
  onClient?: (client: Guacamole.Client | null) => void;
  /** Why the view cannot connect (e.g. desktops are off), or null once it is fine again. */
  onProblem?: (message: string | null) => void;
  /** The server moved control away from this viewer (another window took it). */
  onControlLost?: () => void;
  onClipboard?: (text: string) => void;
};

export type LiveSessionOptions = LiveSessionEvents & {
  /** @default enterDesktop */
  enter?: (agentId: number) => Promise<Enter>;
  /** Delay before reconnect attempt n (from 1). @default 1 s doubling, at most 10 s */
  retryDelay?: (attempt: number) => number;
};

const UNAVAILABLE_RETRY_MS = 15_000;
/** Failed enters without an answer retried quietly before the view says so. */
const QUIET_ATTEMPTS = 3;
export const NOT_ANSWERING = 'The desktop is not answering yet. Still trying…';

export class LiveSession {
  state: ViewerState = 'IDLE';
  client: Guacamole.Client | null = null;
  sessionId: string | null = null;
  private stopped = false;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private wantControl = false;

  constructor(readonly agentId: number, private options: LiveSessionOptions = {}) {}

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  /** Tries again now (the Retry of a view that says why it cannot connect). */
  retryNow(): void {
    if (this.stopped) return;
    this.attempt = 0;
    void this.connect();
  }

  /** Disconnects for good (unmount). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    client?.disconnect();
    this.setState('DISCONNECTED');
  }

  /** Asks the server for (or gives back) control of the desktop's input; kept across reconnects. */
  async control(take: boolean): Promise<boolean> {
    this.wantControl = take;
    if (this.state !== 'CONNECTED' || !this.sessionId) return false;
    const result = await setControl(this.agentId, this.sessionId, take);
    return result.control;
  }

  /** Puts text on the desktop's clipboard as UTF-8 bytes (StringWriter would split emoji). */
  sendClipboard(text: string): void {
    if (!this.client || this.state !== 'CONNECTED') return;
    const writer = new Guacamole.ArrayBufferWriter(this.client.createClipboardStream('text/plain'));
    writer.sendData(new TextEncoder().encode(text));
    writer.sendEnd();
  }

  private setState(state: ViewerState): void {
    if (this.state === state) return;
    this.state = state;
    this.options.onState?.(state);
  }

  private async connect(): Promise<void> {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.setState('CONNECTING');
    let enter: Enter;
    try {
      enter = await (this.options.enter ?? enterDesktop)(this.agentId);
    } catch (error) {
      const e = normalizeError(error);
      this.setState('DISCONNECTED');
      // No answer (a timeout, the network): the desktop may still be starting; keep trying and say nothing of
      // requests. The server's answer (desktops off, a start refused and why) is said, and tried again later.
      if (!e.from_server) {
        this.options.onProblem?.(this.attempt >= QUIET_ATTEMPTS ? NOT_ANSWERING : null);
        return this.retry();
      }
      this.options.onProblem?.(e.detail);
      return this.retry(e.status_code === 503 ? UNAVAILABLE_RETRY_MS : undefined);
    }
    if (this.stopped) return;

    const tunnel = new Guacamole.WebSocketTunnel(enter.guacamole_tunnel_url);
    const client = new Guacamole.Client(tunnel);
    drawImagesFromDataUris(client.getDisplay());
    playDesktopSound(client);
    // The server's 'x-control' tells a viewer it lost control; the library ignores unknown opcodes,
    // so it is picked off before the client's own handler.
    const handle = tunnel.oninstruction;
    tunnel.oninstruction = (opcode, args) => {
      if (opcode === 'x-control') {
        if (args[0] === '0' && this.wantControl && this.client === client) {
          this.wantControl = false;
          this.options.onControlLost?.();
        }
        return;
      }
      handle?.(opcode, args);
    };
    client.onstatechange = (index) => {
      if (this.client !== client) return;
      const state = VIEWER_STATES[index] ?? 'DISCONNECTED';
      this.setState(state);
      if (state === 'CONNECTED') {
        this.attempt = 0;
        this.options.onProblem?.(null);
        if (this.wantControl) this.control(true).catch((err) => console.debug('control not restored', normalizeError(err)));
      }
      if (state === 'DISCONNECTED' && !this.stopped) {
        this.client = null;
        this.options.onClient?.(null);
        this.retry();
      }
    };
    client.onerror = (status) => console.debug('desktop tunnel error', status.code, status.message);
    client.onclipboard = (stream, mimetype) => {
      if (!/^text\//.test(mimetype)) return;
      const reader = new Guacamole.BlobReader(stream, mimetype);
      reader.onend = () => {
        reader
          .getBlob()
          .arrayBuffer()
          .then((buffer) => this.options.onClipboard?.(new TextDecoder().decode(buffer)));
      };
    };
    // Audio: with no onaudio handler the client plays raw PCM streams itself (Guacamole.RawAudioPlayer).

    this.client = client;
    this.sessionId = enter.session_id;
    this.options.onClient?.(client);
    client.connect('');
  }

  private retry(delay?: number): void {
    if (this.stopped) return;
    this.attempt += 1;
    const wait = delay ?? this.options.retryDelay?.(this.attempt) ?? Math.min(1000 * 2 ** (this.attempt - 1), 10_000);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), wait);
  }
}
