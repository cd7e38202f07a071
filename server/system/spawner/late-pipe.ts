// A child's pipe as the caller gets it at once, before the child exists: a Duplex that keeps what is written to it
// and reads nothing until the socket that names its token connects (stdio-sockets.ts), then runs through that socket.
// It never emits 'error': a child that closed its end early is told by the child's exit, as with a pipe of Node's.
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

type Write = { chunk: Buffer; done: () => void };

export class LatePipe extends Duplex {
  private socket: Socket | null = null;
  private over = false;
  private queued: Write[] = [];
  private ending: (() => void) | null = null;
  /** Resolves once the child's side is gone: connected and closed, or never to be connected. */
  readonly gone: Promise<void>;
  private markGone!: () => void;

  constructor() {
    super({ allowHalfOpen: false });
    this.gone = new Promise((resolve) => (this.markGone = resolve));
  }

  attach(socket: Socket): void {
    if (this.over || this.socket) return void socket.destroy();
    this.socket = socket;
    socket.on('error', () => socket.destroy());
    socket.on('data', (data: Buffer) => this.push(data) || socket.pause());
    socket.once('close', () => this.finishChild());
    for (const { chunk, done } of this.queued.splice(0)) socket.write(chunk, () => done());
    const ending = this.ending;
    this.ending = null;
    if (ending) socket.end(ending); // called as the socket ends, never with an error (it drops its argument)
  }

  /** It will never connect (the spawn failed). */
  fail(): void {
    if (!this.socket) this.finishChild();
  }

  override _read(): void {
    this.socket?.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    if (this.over) return done(); // dropped: nobody reads it any more
    if (!this.socket) return void this.queued.push({ chunk, done });
    this.socket.write(chunk, () => done());
  }

  override _final(done: () => void): void {
    if (this.over) return done();
    if (!this.socket) return void (this.ending = () => done());
    this.socket.end(() => done());
  }

  private finishChild(): void {
    if (this.over) return;
    this.over = true;
    for (const { done } of this.queued.splice(0)) done();
    this.ending?.();
    this.ending = null;
    this.push(null);
    // Nobody reads it (a pipe only written to): drained, so that it ends and closes as a socket would.
    if (this.readableFlowing === null && this.listenerCount('readable') === 0) this.resume();
    if (!this.writableEnded) this.end();
    this.markGone();
  }
}
