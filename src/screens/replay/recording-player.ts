// Shows a Guacamole session recording at whatever position the replay's clock asks for. 1.5.0's own play()
// runs at 1× only, so the clock (playback-clock.ts) calls show(position) every frame instead, at any speed.
// The recording plays as segments that each start with a frame painting the whole screen (recording-index.ts):
// a SessionRecording per segment, made when the playhead gets there (the last few are kept for going back), so a
// cold seek replays one segment's frames at most. Seeks go one at a time and the newest position wins: a clock
// that runs ahead of them skips frames instead of queueing them. A seek is done once the display has drawn its
// frame (a flush after the library's callback, which comes before the images are decoded); its time is kept in
// `stats` (and on the stage as data-last-seek-ms) to measure it in a real browser. Displays draw as the live
// view's does (display-images.ts): a focused page's Guacamole display draws one frame per animation frame, which
// would make a seek over 60 frames take a second to show.
import Guacamole from 'guacamole-common-js';
import { GrowingBlob } from '../../lib/growing-blob.ts';
import { drawImagesFromDataUris } from '../agent/live-desktop/display-images.ts';
import { frameAt, indexRecording, playableUntil, segmentAt, type RecordingIndex } from './recording-index.ts';
import { instruction, recordingTunnel } from './recording-tunnel.ts';

export type PlayerEvents = {
  /** The recording is `duration` ms long as far as it was read (again and again while it is read). */
  onProgress?: (duration: number) => void;
  /** Read to the end. */
  onLoad?: () => void;
  onError?: (message: string) => void;
  /** A seek started (true) or the wanted frame is shown (false). */
  onBusy?: (busy: boolean) => void;
};

export type SeekStats = { count: number; lastMs: number; maxMs: number; totalMs: number };

export type RecordingPlayer = {
  /** What the stage shows: the current segment's display inside. */
  element: HTMLElement;
  /** Scales the display into a box of this size (never above 1:1, so text stays sharp). */
  fit: (width: number, height: number) => void;
  /** The display shown now (null before the first frame): its size, and flatten() for a video. */
  display: () => Guacamole.Display | null;
  /** ms of the recording read so far. */
  duration: () => number;
  /** Shows the frame at `position` ms of the recording (clamped to what can be shown; followed up as more is read). */
  show: (position: number) => void;
  /** Resolves once the last position asked for is shown (or cannot be). */
  settled: () => Promise<void>;
  stats: SeekStats;
  dispose: () => void;
};

/** Plays a recording, whole or while it downloads (its first frames show before the end arrives). */
export type CreatePlayer = (recording: Blob | GrowingBlob, events: PlayerEvents) => RecordingPlayer;

/** Segments kept alive (each holds its instructions and a display): the current one and the last ones left. */
const KEEP_SEGMENTS = 3;

type Part = { index: number; at: number; recording: Guacamole.SessionRecording; loaded: Promise<void>; used: number };

const now = () => globalThis.performance?.now() ?? Date.now();

export const createRecordingPlayer: CreatePlayer = (recording, events) => {
  const source = recording instanceof GrowingBlob ? recording : GrowingBlob.whole(recording);
  const element = document.createElement('div');
  element.className = 'replay-recording';
  const stats: SeekStats = { count: 0, lastMs: 0, maxMs: 0, totalMs: 0 };
  const controller = new AbortController();
  const parts = new Map<number, Part>();
  let index: RecordingIndex = { segments: [], frames: [], duration: 0, done: false };
  let visible: Part | null = null;
  let box = { width: 0, height: 0 };
  let goal = 0;
  let shown: number | null = null;
  let busy = false;
  let disposed = false;
  let reported = false;
  let waiters: (() => void)[] = [];
  let uses = 0;

  const report = (value: boolean) => {
    if (value !== reported) events.onBusy?.((reported = value));
  };
  const idle = () => {
    report(false);
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  };

  const fitVisible = () => {
    const display = visible?.recording.getDisplay();
    const w = display?.getWidth();
    const h = display?.getHeight();
    if (!display || !w || !h || !box.width || !box.height) return;
    display.scale(Math.min(box.width / w, box.height / h, 1));
  };

  const open = (i: number): Part => {
    const segment = index.segments[i];
    // A segment is opened once it was read whole (playableUntil): the part that arrived holds it.
    const bytes = source.blob.slice(segment.start, segment.end ?? undefined);
    // A segment past the first starts without the recording's `size`: it is given its screen's.
    const prefix = i === 0 ? '' : instruction('size', 0, segment.width, segment.height);
    const recording = new Guacamole.SessionRecording(recordingTunnel(bytes, prefix));
    const display = recording.getDisplay();
    drawImagesFromDataUris(display);
    display.onresize = () => {
      if (visible?.recording === recording) fitVisible();
    };
    const loaded = new Promise<void>((resolve, reject) => {
      recording.onload = resolve;
      recording.onerror = (message) => reject(new Error(message));
    });
    recording.connect();
    const part: Part = { index: i, at: segment.at, recording, loaded, used: ++uses };
    parts.set(i, part);
    // Forget the least recently used segments beyond the few kept (never the one on screen).
    const spare = [...parts.values()].filter((p) => p !== visible && p !== part).sort((a, b) => a.used - b.used);
    while (parts.size > KEEP_SEGMENTS && spare.length > 0) close(spare.shift()!);
    return part;
  };
  const close = (part: Part) => {
    parts.delete(part.index);
    part.recording.onload = part.recording.onerror = null;
    part.recording.cancel();
    part.recording.abort();
    // Every Guacamole.Display stays referenced by a window 'blur' listener it adds and never removes: its picture is
    // emptied, so that what stays is a few objects, not a canvas of the whole screen per segment played.
    part.recording.getDisplay().getDefaultLayer().resize(1, 1); // not 0: copying a 0×0 canvas throws
  };

  const show = (part: Part) => {
    if (visible === part) return;
    visible = part;
    element.replaceChildren(part.recording.getDisplay().getElement());
    fitVisible();
  };

  const seekIn = (part: Part, position: number) =>
    new Promise<void>((resolve) => part.recording.seek(position, () => part.recording.getDisplay().flush(resolve)));

  const pump = () => {
    if (busy || disposed) return;
    const until = playableUntil(index);
    if (until < 0) return index.done ? idle() : undefined; // nothing to show yet (or ever: no frames)
    // A position the reading has not reached yet: wait for it there, rather than chase the end of what is read so
    // far (each step of that chase opened a segment: a seek far ahead while the recording was read took 14 s).
    if (!index.done && goal > until && shown !== null) return report(true);
    const target = frameAt(index.frames, Math.min(Math.max(0, goal), until));
    if (target === shown) return idle();
    busy = true;
    report(true);
    const started = now();
    const i = segmentAt(index.segments, target);
    const part = parts.get(i) ?? open(i);
    part.used = ++uses;
    part.loaded
      .then(() => seekIn(part, target - part.at))
      .then(
        () => {
          if (disposed) return;
          show(part);
          shown = target;
          const took = now() - started;
          stats.count++;
          stats.lastMs = took;
          stats.totalMs += took;
          stats.maxMs = Math.max(stats.maxMs, took);
        },
        (error: unknown) => {
          close(part);
          shown = target; // not tried again and again; a later position may be in a segment that plays
          events.onError?.(error instanceof Error ? error.message : String(error));
        },
      )
      .finally(() => {
        busy = false;
        pump();
      });
  };

  indexRecording(source, (update) => {
    if (disposed) return;
    index = update;
    events.onProgress?.(update.duration);
    if (shown === null || goal > shown) pump();
  }, controller.signal).then(
    () => {
      if (!disposed) events.onLoad?.();
    },
    (error: unknown) => {
      if (!disposed) events.onError?.(error instanceof Error ? error.message : String(error));
    },
  );

  return {
    element,
    fit(width, height) {
      box = { width, height };
      fitVisible();
    },
    display: () => visible?.recording.getDisplay() ?? null,
    duration: () => index.duration,
    show(position) {
      goal = position;
      pump();
    },
    settled: () => (!busy && (shown === frameAt(index.frames, Math.min(Math.max(0, goal), playableUntil(index))) || disposed)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push(resolve))),
    stats,
    dispose() {
      disposed = true;
      controller.abort();
      for (const part of [...parts.values()]) close(part);
      element.replaceChildren();
      idle();
    },
  };
};
