// A child the spawner started, as its callers see it: enough of Node's ChildProcess (pid, stdio, exitCode and
// signalCode, 'spawn' / 'exit' / 'close' / 'error', kill) that code written for one takes the other. Its stdio pipes
// exist at once (late-pipe.ts); its pid comes when the spawner has started it.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { processAlive } from '../processes.ts';
import type { LatePipe } from './late-pipe.ts';

/** What the server's code holds of a child it started: a RemoteChild, or anything shaped like one. */
export type Child = RemoteChild;

/** An exit seen only as the process being gone (its spawner had died, and init reaped it): its status is unknown. */
export const UNKNOWN_EXIT = -1;

type Events = { spawn: []; exit: [number | null, NodeJS.Signals | null]; close: [number | null, NodeJS.Signals | null]; error: [Error] };

export class RemoteChild extends EventEmitter<Events> {
  pid: number | undefined = undefined;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly stdio: (Duplex | null)[];
  private watch: NodeJS.Timeout | null = null;
  private early: NodeJS.Signals | null = null;

  constructor(
    readonly command: string,
    /** As Node's child's: the command and its arguments. */
    readonly spawnargs: string[],
    private pipes: (LatePipe | null)[],
    /** Sends a signal through the spawner (it knows whether the child was reaped), or false when it cannot. */
    private signal: (signal: NodeJS.Signals) => boolean,
    /** Whether it has a process group of its own, which signals reach whole. */
    readonly group: boolean,
  ) {
    super();
    this.stdio = pipes;
  }

  get stdin(): Duplex | null {
    return this.stdio[0] ?? null;
  }

  get stdout(): Duplex | null {
    return this.stdio[1] ?? null;
  }

  get stderr(): Duplex | null {
    return this.stdio[2] ?? null;
  }

  get running(): boolean {
    return this.pid !== undefined && this.exitCode === null && this.signalCode === null;
  }

  /** As ChildProcess.kill, to its process group when it has one of its own; false when it no longer runs. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    // Asked before the spawner told its pid (Node's child has one at once): sent as soon as it is known.
    if (this.pid === undefined && this.exitCode === null) return (this.early = signal), true;
    if (!this.running) return false;
    if (this.watch) return this.signalDirectly(signal);
    return this.signal(signal);
  }

  /**
   * Signals it from the server itself, not through the spawner: for the process's 'exit', when no message would be
   * sent any more. (Through the spawner, a child it has reaped is never signalled: its pid may be another's.)
   */
  killNow(signal: NodeJS.Signals): boolean {
    return this.running && this.signalDirectly(signal);
  }

  started(pid: number): void {
    this.pid = pid;
    this.emit('spawn');
    if (this.early) this.kill(this.early);
  }

  exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitCode !== null || this.signalCode !== null) return;
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
    void Promise.all(this.pipes.map((pipe) => pipe?.gone)).then(() => this.emit('close', code, signal));
  }

  /** It never started: 'error', then 'close', as Node's child does for a program it cannot start. */
  failed(err: Error): void {
    if (this.exitCode !== null || this.signalCode !== null) return;
    this.exitCode = UNKNOWN_EXIT;
    for (const pipe of this.pipes) pipe?.fail();
    this.emit('error', err);
    setImmediate(() => this.emit('close', this.exitCode, null));
  }

  /**
   * Its spawner died (the child runs on, reparented): from now on its end is seen by polling /proc, and signals are
   * sent from here.
   */
  orphaned(pollMs: number): void {
    if (!this.running || this.watch) return;
    this.watch = setInterval(() => processAlive(this.pid!) || this.exited(UNKNOWN_EXIT, null), pollMs);
  }

  private signalDirectly(signal: NodeJS.Signals): boolean {
    if (!processAlive(this.pid!)) return false;
    try {
      process.kill(this.group ? -this.pid! : this.pid!, signal);
      return true;
    } catch {
      return false;
    }
  }
}
