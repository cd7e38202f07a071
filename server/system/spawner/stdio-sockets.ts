// Where children's pipes come from: a unix socket the server listens on, in a folder of its own (0700, so no other
// user reaches it). The spawner connects once per pipe and first writes the pipe's token; the server hands the
// connection to whoever waits for that token. A connection with a token nobody waits for is closed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The length of a token on the wire (hex of 12 random bytes). */
const TOKEN_CHARS = 24;
/** How long a connection may take to name its token. */
const TOKEN_MS = 10_000;

export class StdioSockets {
  readonly path: string;
  /** The folder of the socket (0700): the spawner removes it too, should the server be killed. */
  readonly dir: string;
  private server: Server;
  private waiting = new Map<string, (socket: Socket) => void>();
  private removeAtExit = () => rmSync(this.dir, { recursive: true, force: true });

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'aw-spawner-')); // mode 0700
    this.path = join(this.dir, 'stdio');
    process.once('exit', this.removeAtExit); // a server that exits without closing its spawner leaves no folder
    this.server = createServer((socket) => this.accept(socket));
    this.server.listen(this.path);
    this.server.unref();
  }

  /** A fresh token, and `attach` called with the connection that names it. */
  expect(attach: (socket: Socket) => void): string {
    const token = randomBytes(TOKEN_CHARS / 2).toString('hex');
    this.waiting.set(token, attach);
    return token;
  }

  /** The token will not be connected (its spawn failed). */
  forget(token: string): void {
    this.waiting.delete(token);
  }

  close(): void {
    this.server.close();
    process.off('exit', this.removeAtExit);
    this.removeAtExit();
  }

  private accept(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    const timer = setTimeout(() => socket.destroy(), TOKEN_MS);
    const read = () => {
      const head = socket.read(TOKEN_CHARS) as Buffer | null;
      if (!head) return;
      socket.off('readable', read);
      clearTimeout(timer);
      const attach = this.waiting.get(head.toString('latin1'));
      if (!attach) return void socket.destroy();
      this.waiting.delete(head.toString('latin1'));
      socket.removeAllListeners('error');
      attach(socket);
    };
    socket.on('readable', read);
    socket.once('close', () => clearTimeout(timer));
  }
}
