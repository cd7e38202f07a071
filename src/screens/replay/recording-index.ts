// Reads a recording once to know its length and where it can be entered cold: the frames that paint the whole
// screen (the recorder writes one at least every 30 s, server/replay/recorder.ts). From such a frame on, nothing
// before it matters, so the replay plays the recording as segments that each start at one (recording-player.ts):
// a seek then replays at most one segment's frames, instead of every frame since the start of the recording
// (SessionRecording 1.5.0 snapshots its display only at frames it has replayed once; an hour's cold seek took 17 s).
// Offsets are in characters, equal to bytes while the recording is ASCII (Guacamole's own recordings of a desktop
// are: base64 and numbers); anything else stays one segment, as if there were no full frames.
import Guacamole from 'guacamole-common-js';
import { GrowingBlob } from '../../lib/growing-blob.ts';

/** A part of the recording that plays on its own: [start, end) in bytes, its first frame `at` ms into the recording. */
export type Segment = { start: number; end: number | null; at: number; width: number; height: number };
export type RecordingIndex = {
  segments: Segment[];
  /** Each frame's time, ms from the first frame, in order (one array, grown as the recording is read). */
  frames: readonly number[];
  /** ms from the first frame to the last frame read so far. */
  duration: number;
  /** Read to the end (the last segment's end is then known too). */
  done: boolean;
};

/** Segments shorter than this are not cut (a screen that changes entirely every frame would make one per frame). */
export const MIN_SEGMENT_MS = 10_000;
const READ_BYTES = 1 << 20;
/** Guacamole's channel masks that replace what was under the image: SRC (12) and OVER (14, opaque PNGs). */
const REPLACING = new Set(['12', '14']);

const elementSize = (value: string) => value.length + String(value.length).length + 2;

/** Width and height from a PNG's first base64 characters (its IHDR), or null. */
export function pngSize(base64: string): [number, number] | null {
  if (!base64.startsWith('iVBORw0KGgo')) return null;
  try {
    const bytes = atob(base64.slice(0, 32));
    const at = (i: number) => bytes.charCodeAt(i);
    const word = (i: number) => ((at(i) << 24) | (at(i + 1) << 16) | (at(i + 2) << 8) | at(i + 3)) >>> 0;
    return bytes.slice(12, 16) === 'IHDR' ? [word(16), word(20)] : null;
  } catch {
    return null;
  }
}

/**
 * Reads the recording (whole, or as it downloads), calling `onUpdate` after each piece; resolves with the complete
 * index. Rejects on a malformed recording, or a download that failed.
 */
export async function indexRecording(
  recording: Blob | GrowingBlob, onUpdate: (index: RecordingIndex) => void = () => {}, signal?: AbortSignal,
): Promise<RecordingIndex> {
  const source = recording instanceof GrowingBlob ? recording : GrowingBlob.whole(recording);
  const segments: Segment[] = [];
  const frameTimes: number[] = [];
  let offset = 0;
  let frameStart = 0;
  let frames = 0;
  let first: number | null = null;
  let last = 0;
  let width = 0;
  let height = 0;
  let ascii = true;
  let paintsAll = false;
  /** Image streams of the current frame that could paint the whole screen, until their first blob says their size. */
  const candidates = new Set<string>();

  const parser = new Guacamole.Parser();
  parser.oninstruction = (opcode, args) => {
    if (opcode === 'size' && args[0] === '0') {
      width = Number(args[1]);
      height = Number(args[2]);
    } else if (opcode === 'img' && args[2] === '0' && args[4] === '0' && args[5] === '0' && REPLACING.has(args[1])) {
      candidates.add(args[0]);
    } else if (opcode === 'blob' && candidates.delete(args[0])) {
      const size = pngSize(args[1]);
      if (size && size[0] === width && size[1] === height) paintsAll = true;
    } else if (opcode === 'sync') {
      const at = Number.parseInt(args[0], 10);
      first ??= at;
      if (frames === 0) segments.push({ start: 0, end: null, at: 0, width, height });
      else if (paintsAll && ascii && at - first - segments[segments.length - 1].at >= MIN_SEGMENT_MS) {
        segments[segments.length - 1].end = frameStart;
        segments.push({ start: frameStart, end: null, at: at - first, width, height });
      }
      frames++;
      frameTimes.push(at - first);
      last = at;
      paintsAll = false;
      candidates.clear();
    }
    offset += elementSize(opcode) + args.reduce((sum, arg) => sum + elementSize(arg), 0);
    if (opcode === 'sync') frameStart = offset;
  };

  const decoder = new TextDecoder();
  const index = (done: boolean): RecordingIndex => ({
    segments: segments.map((s) => ({ ...s })), frames: frameTimes, duration: first === null ? 0 : last - first, done,
  });
  for (let at = 0; ; ) {
    if (signal?.aborted) throw signal.reason ?? new DOMException('Aborted', 'AbortError');
    const arrived = source.blob;
    if (at >= arrived.size) {
      if (!source.done) {
        await source.grown();
        continue;
      }
      if (source.error) throw source.error;
      break;
    }
    const end = Math.min(at + READ_BYTES, arrived.size);
    const bytes = await arrived.slice(at, end).arrayBuffer();
    const text = decoder.decode(bytes, { stream: true });
    if (text.length !== bytes.byteLength) ascii = false;
    parser.receive(text);
    at = end;
    onUpdate(index(false));
  }
  // A recording still being written ends inside an instruction: the last segment ends after the last whole frame.
  if (segments.length > 0) segments[segments.length - 1].end = frameStart;
  const complete = index(true);
  onUpdate(complete);
  return complete;
}

/** The segment that holds `position` (ms from the first frame): the last one starting at or before it. */
export function segmentAt(segments: readonly Segment[], position: number): number {
  let found = 0;
  for (let i = 1; i < segments.length && segments[i].at <= position; i++) found = i;
  return found;
}

/**
 * The time of the frame on screen at `position`: the last frame at or before it (the first, before that), as a
 * video shows. SessionRecording's seek takes the frame nearest to a position, which may be one not yet made then
 * (an action's marker would show the screen after the next change); asked for a frame's own time, it takes that one.
 */
export function frameAt(frames: readonly number[], position: number): number {
  if (frames.length === 0) return 0;
  let low = 0;
  let high = frames.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (frames[middle] <= position) low = middle;
    else high = middle - 1;
  }
  return frames[low];
}

/** How far the recording can be shown (ms): to its end once read, else to just before the segment still being read; -1: not yet. */
export function playableUntil(index: RecordingIndex): number {
  if (index.done) return index.segments.length > 0 ? index.duration : -1;
  return index.segments.length > 1 ? index.segments[index.segments.length - 1].at - 1 : -1;
}
