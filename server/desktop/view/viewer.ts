// One viewer's Guacamole tunnel: the WebSocket, the instruction parser and dispatch, the keep-alive (the
// tunnel's internal ping is echoed, without it the client drops after 15 s; `nop` after a quiet spell keeps
// the client's own keep-alive going) and the way out (`error` with a status, then close). The concerns
// behind it are parts of their own: FramePump (picture and flow control), InputGate (mouse and keys of the
// controller), ClipboardIn (incoming clipboard) and AudioOut (sound).
import type { WebSocket } from 'ws';
import { AudioOut } from './audio.ts';
import { clipboardInstructions, ClipboardIn } from './clipboard.ts';
import { bmpOnly, encode, GuacParser, GuacProtocolError, STATUS, type Instruction } from './codec.ts';
import { FramePump } from './frames.ts';
import { InputGate } from './input.ts';
import type { SessionPort, ViewerPort } from './ports.ts';
import type { Copy } from '../rfb/desktop.ts';
import type { Rect } from '../types.ts';

/** What a tunnel ticket grants: one user's view of one agent's desktop, until `expires`. */
export type Ticket = { userId: number; agentId: number; sessionId: string; name: string; expires: number };

export class Viewer implements ViewerPort {
  readonly id: string;
  readonly userId: number;
  private parser = new GuacParser();
  private frames: FramePump;
  private input: InputGate;
  private clipboardIn = new ClipboardIn();
  private audio = new AudioOut();
  private closed = false;
  private disposed = false;
  private keepAlive: NodeJS.Timeout;
  private lastSentAt = Date.now();
  /** Image and clipboard streams cycle through 1..1000. */
  private stream = 0;

  constructor(private session: SessionPort, private ws: WebSocket, private ticket: Ticket) {
    this.id = ticket.sessionId;
    this.userId = ticket.userId;
    this.frames = new FramePump({
      session,
      buffered: () => ws.bufferedAmount,
      send: (data) => this.send(data),
      nextStream: () => this.nextStream(),
      closed: () => this.closed,
    });
    this.input = new InputGate(session, this.userId, () => this.hasControl(), () => session.takeBack(this));
    ws.on('message', (data, isBinary) => this.onMessage(isBinary ? null : data.toString()));
    ws.on('close', () => this.dispose());
    ws.on('error', () => this.dispose());
    this.keepAlive = setInterval(() => {
      if (Date.now() - this.lastSentAt >= this.options.nopInterval) this.send(encode('nop'));
    }, 1000);
    this.keepAlive.unref();
  }

  private get options() {
    return this.session.gateway.options;
  }

  start(): void {
    // The tunnel opens on the first instruction it gets; the internal opcode with one argument also
    // hands it its uuid.
    this.sendRaw(encode('', this.id));
    this.send(encode('name', bmpOnly(this.ticket.name)));
    this.frames.resized();
  }

  resized(): void {
    this.frames.resized();
  }

  note(rects: Rect[], copies: Copy[]): void {
    this.frames.note(rects, copies);
  }

  sendClipboard(text: string): void {
    this.send(clipboardInstructions(this.nextStream(), text, this.options.blobChars));
  }

  /** Raw PCM for the viewer's audio stream. */
  sendAudio(mimetype: string, pcm: Buffer): void {
    if (this.closed) return;
    const out = this.audio.chunk(mimetype, pcm, { buffered: this.ws.bufferedAmount, maxBuffered: this.options.maxBuffered, blobChars: this.options.blobChars });
    if (out) this.send(out);
  }

  /** Tells the viewer's page that it gained or lost control (a custom opcode the library ignores). */
  controlChanged(control: boolean): void {
    this.send(encode('x-control', control ? 1 : 0));
  }

  private nextStream(): number {
    this.stream = (this.stream % 1000) + 1;
    return this.stream;
  }

  private hasControl(): boolean {
    return this.session.controller === this;
  }

  private onMessage(text: string | null): void {
    if (this.closed) return;
    if (text === null) return this.fail(STATUS.CLIENT_BAD_REQUEST, 'Binary frames are not part of the protocol');
    let instructions: Instruction[];
    try {
      instructions = this.parser.feed(text);
    } catch (err) {
      if (err instanceof GuacProtocolError) return this.fail(STATUS.CLIENT_BAD_REQUEST, `Malformed instruction: ${err.message}`);
      throw err;
    }
    try {
      for (const ins of instructions) {
        if (this.closed) return;
        this.handle(ins);
      }
    } catch (err) {
      if (err instanceof GuacProtocolError) return this.fail(STATUS.CLIENT_BAD_REQUEST, err.message);
      throw err;
    }
  }

  private handle({ opcode, args }: Instruction): void {
    switch (opcode) {
      case '':
        if (args[0] === 'ping') this.sendRaw(encode('', 'ping', args[1] ?? ''));
        return;
      case 'sync':
        return this.frames.ack(args[0]);
      // Input that reached the desktop: the pictures it causes need not wait for the frame interval.
      case 'mouse':
        if (this.input.mouse(int(args[0]), int(args[1]), int(args[2]))) this.frames.hurry();
        return;
      case 'key':
        if (this.input.key(int(args[0]), args[1])) this.frames.hurry();
        return;
      case 'clipboard':
        if (this.hasControl()) this.clipboardIn.begin(args[0], args[1]);
        return;
      case 'blob': {
        const ack = this.clipboardIn.blob(args[0], args[1]);
        if (ack) this.send(ack);
        return;
      }
      case 'end': {
        const text = this.clipboardIn.end(args[0]);
        if (text !== null && this.hasControl()) void this.session.desktop.setClipboard(text);
        return;
      }
      case 'ack':
        return this.audio.ack(args[0], args[2]);
      case 'disconnect':
        this.closed = true;
        this.ws.close(1000);
        this.dispose();
        return;
      default:
        return; // nop, size, and anything else: nothing to do
    }
  }

  /** Sends an instruction the client's Guacamole.Client sees (counts for the keep-alive). */
  private send(data: string): void {
    this.lastSentAt = Date.now();
    this.sendRaw(data);
  }

  private sendRaw(data: string): void {
    if (!this.closed && this.ws.readyState === this.ws.OPEN) this.ws.send(data);
  }

  /** Ends the tunnel with a Guacamole error the client can show; the reason carries the status code. */
  fail(status: number, message: string, closeCode = 1008): void {
    if (this.closed) return;
    this.send(encode('error', bmpOnly(message).slice(0, 200), status));
    this.closed = true;
    this.ws.close(closeCode, String(status));
    this.dispose();
  }

  private dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.closed = true;
    this.frames.dispose();
    clearInterval(this.keepAlive);
    this.input.release();
    this.session.remove(this);
  }
}

function int(value: string | undefined): number {
  if (value === undefined || !/^-?\d{1,10}$/.test(value)) throw new GuacProtocolError(`expected an integer, got ${JSON.stringify(value?.slice(0, 20))}`);
  return Number(value);
}
