// A desktop's sound: one PulseAudio per desktop whose only sink writes what plays into a FIFO. The desktop's
// programs reach it through PULSE_SERVER (a socket in the agent's home, which is 0700), and while anyone
// listens a `cat` in the desktop's sandbox reads the FIFO as raw 16-bit stereo PCM, the format Guacamole's
// RawAudioPlayer plays. The sink is suspended a second after the last program stops playing, and then it
// writes nothing: an idle desktop costs no wakeups. (A null sink's monitor, read with parec, streamed
// zeros 25 times a second whenever someone watched: ~2% of a core across PulseAudio, parec and the server,
// and a recording stream on a monitor keeps the sink from ever suspending.) What leading or trailing
// silence still comes, as a program starts or ends, is not passed on.
// Both run as the desktop's user and the FIFO is the agent's file: the server reads only the pipe from
// `cat`, and stops reading a desktop that sends far more than real time.
import type { Child } from '../../system/spawner/index.ts';
import { existsSync, rmSync } from 'node:fs';
import type { Log } from '../../ops/log.ts';
import { processesOf, processesWithArgument } from '../contain/processes.ts';
import type { Sandbox } from '../contain/sandbox.ts';

export const SOUND_RATE = 44100;
export const SOUND_CHANNELS = 2;
export const SOUND_MIMETYPE = `audio/L16;rate=${SOUND_RATE},channels=${SOUND_CHANNELS}`;
const FRAME_BYTES = 2 * SOUND_CHANNELS;
/**
 * More than this many bytes in a second is not sound playing but a flood: reading stops. Eight seconds of sound a
 * second, since a sound server that was starved on a loaded machine catches up in bursts faster than real time.
 */
const SOUND_FLOOD_BYTES = 8 * SOUND_RATE * FRAME_BYTES;
/**
 * A chunk of whole frames less the digital silence at either end; empty when it is all silence. Trimming
 * each read, not only dropping silent reads, keeps a loaded machine's long reads from carrying silence too.
 */
export function trimSilence(chunk: Buffer): Buffer {
  let start = 0;
  while (start < chunk.length && chunk[start] === 0) start++;
  if (start === chunk.length) return chunk.subarray(0, 0);
  let end = chunk.length;
  while (chunk[end - 1] === 0) end--;
  return chunk.subarray(start - (start % FRAME_BYTES), end + ((FRAME_BYTES - (end % FRAME_BYTES)) % FRAME_BYTES));
}

/** Cuts a byte stream into whole sample frames (a pipe read can end mid-sample). */
export class FrameAligner {
  private rest: Buffer = Buffer.alloc(0);

  push(data: Buffer): Buffer {
    const all = this.rest.length ? Buffer.concat([this.rest, data]) : data;
    const whole = all.length - (all.length % FRAME_BYTES);
    this.rest = Buffer.from(all.subarray(whole));
    return all.subarray(0, whole);
  }
}

export type SoundOptions = {
  /** Where the desktop's programs start; its home holds the sound server's socket. */
  sandbox: Sandbox;
  log: Log;
};

export class DesktopSound {
  readonly mimetype = SOUND_MIMETYPE;
  private listeners = new Set<(chunk: Buffer) => void>();
  private capture: Child | null = null;
  private retry: NodeJS.Timeout | null = null;
  /**
   * The sweeps for stray readers, one after the other: a capture starts only once the sweep before it is done,
   * so that no sweep takes the new capture's reader for a stray.
   */
  private sweeps: Promise<void> = Promise.resolve();
  private starting = false;
  private closed = false;
  /** Its socket is there: capture may start. */
  private up = false;
  /** Whether the server came up (false: it failed, logged, or the desktop stopped first). */
  readonly ready: Promise<boolean>;

  private constructor(readonly server: Child, readonly socket: string, private fifo: string, private log: Log, private sandbox: Sandbox) {
    server.once('exit', (code, signal) => {
      if (!this.closed && this.up) log.error(`desktop sound: PulseAudio exited (${signal ?? code}); the desktop is silent now`);
      if (this.up) this.close();
    });
    this.ready = this.started();
  }

  /** Whether PulseAudio is installed (Debian: pulseaudio), and `cat` to read its FIFO. */
  static installed(sandbox: Pick<Sandbox, 'which'>): boolean {
    return !!sandbox.which('pulseaudio') && !!sandbox.which('cat');
  }

  /**
   * Starts the desktop's sound server and returns at once: listeners may subscribe before it is up (capture starts
   * then). `ready` tells whether it came up; when it does not, the reason is logged and the desktop stays silent.
   */
  static start({ sandbox, log }: SoundOptions): DesktopSound {
    // Where the desktop's programs reach it, and where the server sees it appear.
    const socket = sandbox.socket('.pulse.sock');
    const fifo = sandbox.socket('.sound.fifo');
    rmSync(sandbox.hostPath(socket), { force: true });
    rmSync(sandbox.hostPath(fifo), { force: true });
    const args = [
      '-n', '--daemonize=no', '--exit-idle-time=-1', '--use-pid-file=no', '--disable-shm=yes',
      '--log-target=stderr', '--log-level=error',
      // Paced by the clock, not by the reader: what nobody reads is dropped, and playback keeps its speed.
      '-L', `module-pipe-sink sink_name=desktop file=${fifo} format=s16le rate=${SOUND_RATE} channels=${SOUND_CHANNELS} use_system_clock_for_timing=yes`,
      '-L', 'module-suspend-on-idle timeout=1',
      '-L', `module-native-protocol-unix socket=${socket} auth-anonymous=1`,
    ];
    return new DesktopSound(sandbox.spawn('pulseaudio', args, { stdio: ['ignore', 'ignore', 'pipe'] }), socket, fifo, log, sandbox);
  }

  /** Resolves once the server's socket is there (true), or it failed or was closed first (false). */
  private async started(): Promise<boolean> {
    const { server } = this;
    let stderr = '';
    server.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
    const failed = new Promise<false>((resolve) => {
      server.on('error', () => resolve(false));
      server.once('exit', () => resolve(false));
    });
    const up = await Promise.race([failed, waitForFile(this.sandbox.hostPath(this.socket), 5000, () => this.closed)]);
    if (up && !this.closed) {
      this.up = true;
      if (this.listeners.size) this.startCapture();
      return true;
    }
    if (!this.closed) {
      this.log.error(`desktop sound: PulseAudio did not start: ${stderr.trim().split('\n').at(-1) || 'no socket within 5 s'}`);
      this.close();
    }
    return false;
  }

  /** What the desktop's programs need in their environment to play here. */
  get env(): Record<string, string> {
    return { PULSE_SERVER: `unix:${this.socket}` };
  }

  /** Calls back with audible PCM chunks while subscribed; capture runs only while someone listens. */
  listen(onChunk: (chunk: Buffer) => void): () => void {
    this.listeners.add(onChunk);
    if (this.listeners.size === 1) this.startCapture();
    return () => {
      this.listeners.delete(onChunk);
      if (this.listeners.size === 0) this.stopCapture();
    };
  }

  get capturing(): boolean {
    return this.capture !== null;
  }

  private startCapture(): void {
    if (this.closed || this.capture || this.starting || !this.up) return;
    this.starting = true;
    this.sweeps = this.sweeps.then(() => this.endStrayReaders()).then(() => {
      this.starting = false;
      if (!this.closed && !this.capture && this.listeners.size) this.readFifo();
    }).catch((err) => this.log.error(`desktop sound: reading its FIFO failed: ${(err as Error).message}`)); // the chain goes on
  }

  private readFifo(): void {
    // What the FIFO holds now was written while nobody read it (after that, the sink dropped what it played):
    // old sound, which the non-blocking dd drains before cat streams what plays from now on.
    const read = 'dd if="$0" iflag=nonblock of=/dev/null bs=65536 count=1 2>/dev/null; exec cat "$0"';
    const child = this.sandbox.spawn('sh', ['-c', read, this.fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    this.capture = child;
    const frames = new FrameAligner();
    let second = 0;
    let bytes = 0;
    child.stdout!.on('data', (data: Buffer) => {
      if (this.capture !== child) return; // stopped: what it had still written is not passed on
      const now = Math.floor(Date.now() / 1000);
      if (now !== second) [second, bytes] = [now, 0];
      if ((bytes += data.length) > SOUND_FLOOD_BYTES) return this.flooded();
      const chunk = trimSilence(frames.push(data));
      if (chunk.length) for (const listener of this.listeners) listener(chunk);
    });
    child.once('error', (err) => this.log.error(`desktop sound: reading its FIFO failed: ${err.message}`));
    child.once('close', () => {
      if (this.capture !== child) return;
      this.capture = null;
      // The read ends when the sound server restarts or hiccups; listeners keep listening.
      if (!this.closed && this.listeners.size) this.retry = setTimeout(() => ((this.retry = null), this.startCapture()), 1000);
    });
  }

  /** Far more than real time comes from the FIFO: not sound but the agent's flood. Reading stops until listening starts anew. */
  private flooded(): void {
    this.log.error(
      `desktop sound: more than ${SOUND_FLOOD_BYTES} bytes in a second from the desktop's FIFO; `
        + 'its sound stays off until its viewers have all left and one comes back',
    );
    this.stopCapture();
  }

  private stopCapture(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const child = this.capture;
    this.capture = null;
    if (child && child.exitCode === null) child.kill('SIGTERM');
    this.sweeps = this.sweeps.then(() => this.endStrayReaders());
  }

  /**
   * Readers of this desktop's FIFO that no capture owns. A capture stopped while its sandbox was still being
   * set up can leave its `cat` running (bubblewrap's child outlives a parent killed before it asked to die
   * with it); such a reader would take what plays from the next one, and read the FIFO for good.
   */
  private async endStrayReaders(): Promise<void> {
    // Contained, every desktop's FIFO has the same path: only the desktop's own processes are looked at.
    const account = this.sandbox.account;
    const readers = await (account ? processesOf(account.uid) : Promise.resolve(undefined))
      .then((own) => processesWithArgument(this.fifo, own))
      .catch(() => []); // /proc unreadable: nothing to sweep
    for (const pid of readers) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  }

  /** Ends capture and the sound server. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.stopCapture();
    // Not yet up: SIGKILL, as a start that fails (it has nothing to save).
    if (this.server.exitCode === null && this.server.signalCode === null) this.server.kill(this.up ? 'SIGTERM' : 'SIGKILL');
    rmSync(this.sandbox.hostPath(this.socket), { force: true });
  }
}

async function waitForFile(path: string, ms: number, cancelled: () => boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !cancelled()) {
    if (existsSync(path)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}
