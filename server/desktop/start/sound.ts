// A desktop's sound: one PulseAudio per desktop whose only sink is a null sink. The desktop's programs
// reach it through PULSE_SERVER (a socket in the agent's home, which is 0700), and while anyone listens
// parec reads the sink's monitor as raw 16-bit stereo PCM — the format Guacamole's RawAudioPlayer plays.
// The monitor streams zeros when nothing plays; silence is not passed on, so an idle desktop sends none.
// Both run as the desktop's user: the socket is in the agent's home, so whatever answers there is the agent's.
import type { ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import type { Log } from '../../ops/log.ts';
import type { Sandbox } from '../contain/sandbox.ts';

export const SOUND_RATE = 44100;
export const SOUND_CHANNELS = 2;
export const SOUND_MIMETYPE = `audio/L16;rate=${SOUND_RATE},channels=${SOUND_CHANNELS}`;
const FRAME_BYTES = 2 * SOUND_CHANNELS;
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
  private capture: ChildProcess | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(readonly server: ChildProcess, readonly socket: string, private log: Log, private sandbox: Sandbox) {
    server.once('exit', (code, signal) => {
      if (!this.closed) log.error(`desktop sound: PulseAudio exited (${signal ?? code}); the desktop is silent now`);
      this.close();
    });
  }

  /** Whether PulseAudio and its parec are installed (Debian: pulseaudio, pulseaudio-utils). */
  static installed(sandbox: Pick<Sandbox, 'which'>): boolean {
    return !!sandbox.which('pulseaudio') && !!sandbox.which('parec');
  }

  /** Starts the desktop's sound server, or resolves null when it does not come up: no sound then. */
  static async start({ sandbox, log }: SoundOptions): Promise<DesktopSound | null> {
    // Where the desktop's programs reach it, and where the server sees it appear.
    const socket = sandbox.socket('.pulse.sock');
    const hostSocket = sandbox.hostPath(socket);
    rmSync(hostSocket, { force: true });
    const args = [
      '-n', '--daemonize=no', '--exit-idle-time=-1', '--use-pid-file=no', '--disable-shm=yes',
      '--log-target=stderr', '--log-level=error',
      '-L', `module-null-sink sink_name=desktop rate=${SOUND_RATE} channels=${SOUND_CHANNELS}`,
      '-L', `module-native-protocol-unix socket=${socket} auth-anonymous=1`,
    ];
    const server = sandbox.spawn('pulseaudio', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    server.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
    const failed = new Promise<false>((resolve) => {
      server.on('error', () => resolve(false));
      server.once('exit', () => resolve(false));
    });
    const ready = await Promise.race([failed, waitForFile(hostSocket, 5000)]);
    if (!ready) {
      if (server.exitCode === null && server.pid) server.kill('SIGKILL');
      log.error(`desktop sound: PulseAudio did not start: ${stderr.trim().split('\n').at(-1) || 'no socket within 5 s'}`);
      return null;
    }
    return new DesktopSound(server, socket, log, sandbox);
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
    if (this.closed || this.capture) return;
    const args = [
      `--server=unix:${this.socket}`, '--device=desktop.monitor', '--raw', '--format=s16le',
      `--rate=${SOUND_RATE}`, `--channels=${SOUND_CHANNELS}`, '--latency-msec=40',
    ];
    const child = this.sandbox.spawn('parec', args, { stdio: ['ignore', 'pipe', 'ignore'] });
    this.capture = child;
    const frames = new FrameAligner();
    child.stdout!.on('data', (data: Buffer) => {
      const chunk = trimSilence(frames.push(data));
      if (chunk.length) for (const listener of this.listeners) listener(chunk);
    });
    child.once('error', (err) => this.log.error(`desktop sound: parec failed: ${err.message}`));
    child.once('close', () => {
      if (this.capture !== child) return;
      this.capture = null;
      // parec ends when the sound server restarts or hiccups; listeners keep listening.
      if (!this.closed && this.listeners.size) this.retry = setTimeout(() => ((this.retry = null), this.startCapture()), 1000);
    });
  }

  private stopCapture(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const child = this.capture;
    this.capture = null;
    if (child && child.exitCode === null) child.kill('SIGTERM');
  }

  /** Ends capture and the sound server. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.stopCapture();
    if (this.server.exitCode === null && this.server.signalCode === null) this.server.kill('SIGTERM');
    rmSync(this.sandbox.hostPath(this.socket), { force: true });
  }
}

async function waitForFile(path: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (existsSync(path)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}
