// The one process that starts the server's children (issue 48, item 5): a fork copies the page tables of the process
// that forks, ~38 ms of a stalled event loop at 800 MB, so the server forks once, at boot, a small Node program
// (spawner-program.ts) and asks it for every child over a pipe. A spawner that dies is started again; what it had
// started runs on and is watched through /proc (remote-child.ts), and a spawn it had not answered fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { LatePipe } from './late-pipe.ts';
import { RemoteChild } from './remote-child.ts';
import { SPAWNER_PROGRAM } from './spawner-program.ts';
import { StdioSockets } from './stdio-sockets.ts';

export type SpawnOptions = {
  /** The child's whole environment. @default the spawner's own: PATH alone */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  uid?: number;
  gid?: number;
  /** Each of fds 0, 1, 2 and on: a pipe to the server, nothing, or the server's own. @default all 'ignore' */
  stdio?: 'pipe' | 'ignore' | 'inherit' | ('pipe' | 'ignore' | 'inherit')[];
  /** In a process group of its own, which kill() signals as a whole. @default true */
  detached?: boolean;
};

export type SpawnerOptions = {
  /** The spawner's PATH, and every child's without an env of its own. */
  path: string;
  /** How often a child whose spawner died is looked for in /proc. @default 250 */
  orphanPollMs?: number;
};

type Message =
  | { type: 'ready'; pid: number }
  | { id: number; type: 'pid'; pid: number }
  | { id: number; type: 'exit'; code: number | null; signal: NodeJS.Signals | null }
  | { id: number; type: 'error'; message: string; code?: string };

/** Backoff of a spawner that dies soon after it started, so that a broken one is not restarted in a loop. */
const RESTART_MS = [0, 250, 1000, 5000];
const STABLE_MS = 10_000;

export class Spawner {
  private process: ChildProcess | null = null;
  private children = new Map<number, RemoteChild>();
  /** Children a dead spawner started that still run: each new spawner adopts them, to end them should the server die. */
  private orphans = new Set<RemoteChild>();
  private nextId = 1;
  private sockets: StdioSockets | null = null;
  private startedAt = 0;
  private failures = 0;
  private restart: NodeJS.Timeout | null = null;
  private closed = false;
  /** How many times a spawner of this one died: a start that saw it change lost some of its pieces. */
  deaths = 0;

  constructor(private options: SpawnerOptions) {}

  /** The spawner's pid, or null while none runs. */
  get pid(): number | null {
    return this.process?.pid ?? null;
  }

  /** The spawns the spawner has not answered yet (neither a pid nor an error). */
  get unanswered(): RemoteChild[] {
    return [...this.children.values()].filter((child) => child.pid === undefined);
  }

  /** Starts the spawner now (at boot, while the server is small) rather than at the first spawn. */
  start(): void {
    if (this.process || this.closed) return;
    if (this.restart) clearTimeout(this.restart);
    this.restart = null;
    this.sockets ??= new StdioSockets();
    this.startedAt = Date.now();
    // The one fork the server makes itself. Detached: a Ctrl+C at the terminal is for the server, which stops in order.
    const child = spawn(process.execPath, ['--max-old-space-size=64', '-e', SPAWNER_PROGRAM, this.sockets.dir], {
      stdio: ['pipe', 'pipe', 'inherit'], env: { PATH: this.options.path }, detached: true,
    });
    this.process = child;
    child.stdin!.on('error', () => {}); // it died: its exit says so
    let buffered = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        this.receive(JSON.parse(buffered.slice(0, nl)) as Message);
        buffered = buffered.slice(nl + 1);
      }
    });
    child.once('error', () => {}); // 'exit' or 'close' follows
    child.once('close', () => this.died(child));
    for (const orphan of this.orphans) this.send({ type: 'adopt', pid: orphan.pid, group: orphan.group });
    this.hold();
  }

  /** As Node's children do, the ones started here keep the server's process alive; an idle spawner does not. */
  private hold(): void {
    const child = this.process;
    if (!child) return;
    const busy = this.children.size > 0;
    for (const handle of [child, child.stdin, child.stdout] as unknown as { ref(): void; unref(): void }[]) {
      if (busy) handle.ref();
      else handle.unref();
    }
  }

  /** Starts `command` through the spawner; the child's pipes are there at once, its pid once it started. */
  spawn(command: string, args: string[], options: SpawnOptions = {}): RemoteChild {
    if (this.closed) throw new Error('the spawner is closed');
    this.start();
    const std = typeof options.stdio === 'string' ? [options.stdio, options.stdio, options.stdio] : [...(options.stdio ?? [])];
    while (std.length < 3) std.push('ignore');
    const id = this.nextId++;
    const tokens: string[] = [];
    const pipes = std.map((kind) => (kind === 'pipe' ? new LatePipe() : null));
    const stdio = std.map((kind, fd) => {
      if (kind !== 'pipe') return kind;
      const token = this.sockets!.expect((socket) => pipes[fd]!.attach(socket));
      tokens.push(token);
      return { token };
    });
    const detached = options.detached ?? true;
    const child = new RemoteChild(command, [command, ...args], pipes, (signal) => this.send({ type: 'kill', id, signal, group: detached }), detached);
    child.once('close', () => tokens.forEach((t) => this.sockets?.forget(t)));
    this.children.set(id, child);
    this.hold();
    const env = options.env ?? { PATH: this.options.path };
    const { cwd, uid, gid } = options;
    this.send({ type: 'spawn', id, command, args, env, cwd, uid, gid, detached, stdio, socket: this.sockets!.path });
    return child;
  }

  /** Stops the spawner, which ends every child it started or adopted (as at the server's death). */
  close(): void {
    this.closed = true;
    if (this.restart) clearTimeout(this.restart);
    this.process?.stdin?.end();
    this.process = null;
    this.sockets?.close();
    this.sockets = null;
  }

  private send(message: object): boolean {
    const stdin = this.process?.stdin;
    if (!stdin || stdin.destroyed) return false;
    return stdin.write(`${JSON.stringify(message)}\n`), true;
  }

  private receive(m: Message): void {
    if (m.type === 'ready') return;
    const child = this.children.get(m.id);
    if (!child) return;
    if (m.type === 'pid') return child.started(m.pid);
    this.children.delete(m.id);
    this.hold();
    if (m.type === 'exit') child.exited(m.code, m.signal);
    else child.failed(Object.assign(new Error(`spawn ${child.command}: ${m.message}`), { code: m.code }));
  }

  /** The spawner is gone: what it had not started fails, what it had started is watched from here, and a new one starts. */
  private died(process: ChildProcess): void {
    if (this.process !== process) return;
    this.process = null;
    this.deaths++;
    for (const [id, child] of this.children) {
      this.children.delete(id);
      if (child.pid === undefined) child.failed(new Error(`spawn ${child.command}: the spawner ended before it started`));
      else {
        child.orphaned(this.options.orphanPollMs ?? 250);
        this.orphans.add(child);
        child.once('exit', () => this.orphans.delete(child));
      }
    }
    if (this.closed) return;
    this.failures = Date.now() - this.startedAt < STABLE_MS ? this.failures + 1 : 0;
    const delay = RESTART_MS[Math.min(this.failures, RESTART_MS.length - 1)];
    this.restart = setTimeout(() => this.start(), delay);
    this.restart.unref();
  }
}
