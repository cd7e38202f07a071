// A WebM video of a recording, made in the browser: a second player of the same bytes (the one on screen keeps
// its place) is driven by the replay's clock at the chosen speed, over idle stretches when asked; each step's
// display (display.flatten()) is drawn into a canvas that MediaRecorder records from canvas.captureStream().
// MediaRecorder stamps frames with real time, so the video lasts as long as the export plays: a 60-minute run
// at 8× makes a 7½-minute video. A hidden tab gets timers once a second at most; the clock's step is capped,
// so the export then slows down instead of skipping.
import type { IdleSpan } from '../../lib/replay-api.ts';
import { advance, type Speed } from './playback-clock.ts';
import { createRecordingPlayer, type RecordingPlayer } from './recording-player.ts';

const FPS = 15;
const MAX_STEP_MS = 250;
const BITS_PER_SECOND = 4_000_000;
const TYPES = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'];

export type ExportOptions = {
  speed: Speed;
  /** Stretches to skip, in the recording's time base (ms from its first frame); empty plays everything. */
  idle: readonly IdleSpan[];
  /** 0 to 1. */
  onProgress: (fraction: number) => void;
  signal: AbortSignal;
};

/** The WebM type this browser records, or null when it cannot record a canvas. */
export function webmType(): string | null {
  if (typeof MediaRecorder === 'undefined' || typeof HTMLCanvasElement === 'undefined') return null;
  if (typeof HTMLCanvasElement.prototype.captureStream !== 'function') return null;
  return TYPES.find((type) => MediaRecorder.isTypeSupported(type)) ?? null;
}

const aborted = () => new DOMException('The export was cancelled', 'AbortError');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A player of the whole recording, once it is read to the end; resolves with it and the recording's length. */
function load(blob: Blob, signal: AbortSignal): Promise<{ player: RecordingPlayer; duration: number }> {
  return new Promise((resolve, reject) => {
    const player = createRecordingPlayer(blob, {
      onLoad: () => resolve({ player, duration: player.duration() }),
      onError: (message) => reject(new Error(`The recording could not be read: ${message}`)),
    });
    signal.addEventListener('abort', () => {
      player.dispose();
      reject(aborted());
    }, { once: true });
  });
}

export async function exportWebm(blob: Blob, options: ExportOptions): Promise<Blob> {
  const type = webmType();
  if (!type) throw new Error('This browser cannot make a video of the replay.');
  const { signal } = options;
  const { player, duration } = await load(blob, signal);
  let recorder: MediaRecorder | null = null;
  try {
    player.show(0);
    await player.settled();
    const first = player.display();
    if (!first) throw new Error('The recording has no picture.');
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(2, first.getWidth());
    canvas.height = Math.max(2, first.getHeight());
    const context = canvas.getContext('2d')!;
    const draw = () => {
      const frame = player.display()?.flatten();
      if (!frame) return;
      context.fillRect(0, 0, canvas.width, canvas.height);
      // The screen may change size on the way; the video keeps its first size and fits the picture in.
      const scale = Math.min(canvas.width / (frame.width || 1), canvas.height / (frame.height || 1));
      context.drawImage(frame, 0, 0, frame.width * scale, frame.height * scale);
    };
    draw();

    const chunks: Blob[] = [];
    const active = new MediaRecorder(canvas.captureStream(FPS), { mimeType: type, videoBitsPerSecond: BITS_PER_SECOND });
    recorder = active;
    active.ondataavailable = (event) => event.data.size > 0 && chunks.push(event.data);
    const stopped = new Promise<void>((resolve) => (active.onstop = () => resolve()));
    active.start(1000);

    const timeline = { duration, idle: options.idle, markers: [] };
    let clock = { position: 0, playing: true, speed: options.speed, skipIdle: options.idle.length > 0 };
    let last = performance.now();
    while (clock.playing) {
      await pause(1000 / FPS);
      if (signal.aborted) throw aborted();
      const now = performance.now();
      clock = advance(clock, Math.min(now - last, MAX_STEP_MS), timeline);
      last = now;
      player.show(clock.position);
      await player.settled();
      draw();
      options.onProgress(duration > 0 ? clock.position / duration : 1);
    }
    // The last picture stays a moment, so the video does not end on a cut.
    await pause(500);
    active.stop();
    await stopped;
    return new Blob(chunks, { type: 'video/webm' });
  } finally {
    if (recorder && recorder.state !== 'inactive') recorder.stop();
    player.dispose();
  }
}
