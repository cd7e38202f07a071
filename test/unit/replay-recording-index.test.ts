import '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  frameAt, indexRecording, MIN_SEGMENT_MS, playableUntil, pngSize, segmentAt, type RecordingIndex,
} from '../../src/screens/replay/recording-index.ts';
import { instruction } from '../../src/screens/replay/recording-tunnel.ts';
import { GrowingBlob } from '../../src/lib/growing-blob.ts';

async function waitUntil(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The first bytes of a PNG of w × h, base64 (all pngSize reads), padded like image data. */
function png(w: number, h: number): string {
  const bytes = [137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, ...'IHDR'].map((b) => (typeof b === 'string' ? b.charCodeAt(0) : b));
  for (const n of [w, h]) bytes.push((n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);
  return btoa(String.fromCharCode(...bytes, 8, 2, 0, 0, 0)) + 'AAAA';
}

/** A frame as the recorder writes it: PNG images on layer 0 (mask 14), then sync. */
function frame(at: number, images: [x: number, y: number, w: number, h: number][], stream = 0): string {
  let text = '';
  images.forEach(([x, y, w, h], i) => {
    text += instruction('img', stream + i, 14, 0, 'image/png', x, y) + instruction('blob', stream + i, png(w, h)) + instruction('end', stream + i);
  });
  return text + instruction('sync', at);
}

const T0 = 1_741_082_400_000;
const size = instruction('size', 0, 1280, 800);
const FULL: [number, number, number, number] = [0, 0, 1280, 800];
const SMALL: [number, number, number, number] = [64, 32, 64, 16];

const index = suite('replay: recording index (segments at full-screen frames)');

index('reads a PNG\'s size from its first base64 characters', () => {
  assert.equal(pngSize(png(1280, 800)), [1280, 800]);
  assert.is(pngSize('/9j/4AAQSkZJRg'), null, 'a JPEG');
  assert.is(pngSize('iVBORw0KGgo'), null, 'too short');
});

index('cuts a segment at each full-screen frame at least MIN_SEGMENT_MS after the last cut; offsets are bytes', async () => {
  const parts = [
    size + frame(T0, [FULL]),
    frame(T0 + 500, [SMALL]),
    frame(T0 + 4_000, [FULL]), // too soon after the start: no cut
    frame(T0 + 12_000, [SMALL]),
    frame(T0 + 30_000, [FULL]), // a cut
    frame(T0 + 31_000, [[0, 0, 1280, 400]]), // not the whole screen
    frame(T0 + 45_000, [SMALL, FULL], 1), // whole screen as the second image of a frame: a cut
    frame(T0 + 50_000, [SMALL]),
  ];
  const text = parts.join('');
  const updates: RecordingIndex[] = [];
  const result = await indexRecording(new Blob([text]), (u) => updates.push(u));
  const starts = [0, 4, 6].map((i) => parts.slice(0, i).join('').length);
  assert.equal(result.segments, [
    { start: starts[0], end: starts[1], at: 0, width: 1280, height: 800 },
    { start: starts[1], end: starts[2], at: 30_000, width: 1280, height: 800 },
    { start: starts[2], end: text.length, at: 45_000, width: 1280, height: 800 },
  ]);
  assert.is(result.duration, 50_000);
  assert.equal(result.frames, [0, 500, 4_000, 12_000, 30_000, 31_000, 45_000, 50_000]);
  assert.ok(result.done);
  assert.ok(updates[updates.length - 1].done);
  assert.ok(30_000 - 0 >= MIN_SEGMENT_MS);
  // Each segment, given its screen size, starts with its full-screen frame.
  assert.ok(text.slice(starts[1]).startsWith(instruction('img', 0, 14, 0, 'image/png', 0, 0)));
});

index('a recording read as it downloads: its first segments are playable before the rest arrives, the index grows with it', async () => {
  const first = size + frame(T0, [FULL]) + frame(T0 + 5_000, [SMALL]) + frame(T0 + 30_000, [FULL]);
  const rest = frame(T0 + 40_000, [SMALL]) + frame(T0 + 60_000, [FULL]) + frame(T0 + 61_000, [SMALL]);
  const bytes = new TextEncoder().encode(first + rest);
  let push!: (chunk: Uint8Array | null) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (chunk) => (chunk ? controller.enqueue(chunk) : controller.close());
    },
  });
  const arriving = GrowingBlob.reading(body);
  const updates: RecordingIndex[] = [];
  const done = indexRecording(arriving, (u) => updates.push(u));
  push(bytes.slice(0, first.length));
  await waitUntil(() => updates.some((u) => playableUntil(u) >= 0));
  const early = updates[updates.length - 1];
  assert.not.ok(early.done);
  assert.is(playableUntil(early), 30_000 - 1, 'the first segment plays while the rest is on its way');
  push(bytes.slice(first.length));
  push(null);
  const result = await done;
  assert.ok(result.done);
  assert.equal(result.segments.map((x) => x.at), [0, 30_000, 60_000]);
  assert.is(result.duration, 61_000);
  assert.is((await arriving.finished()).size, bytes.length);
});

index('a download that fails ends the index with its error', async () => {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(size + frame(T0, [FULL])));
      controller.error(new Error('connection reset'));
    },
  });
  const arriving = GrowingBlob.reading(body);
  for (const attempt of [() => indexRecording(arriving), () => arriving.finished()]) {
    const error = await attempt().then(() => null, (e: Error) => e);
    assert.match(error?.message ?? 'no error', /connection reset/);
  }
});

index('a recording cut off inside an instruction ends after its last whole frame', async () => {
  const whole = size + frame(T0, [FULL]) + frame(T0 + 200, [SMALL]);
  const result = await indexRecording(new Blob([whole + frame(T0 + 400, [SMALL]).slice(0, 25)]));
  assert.equal(result.segments.map((s) => [s.start, s.end]), [[0, whole.length]]);
  assert.is(result.duration, 200);
});

index('which segment holds a position, and how far the recording can be shown while it is read', () => {
  const segments = [0, 30_000, 45_000].map((at, i) => ({ start: i, end: i + 1, at, width: 1, height: 1 }));
  assert.equal([0, 29_999, 30_000, 44_000, 99_000].map((p) => segmentAt(segments, p)), [0, 0, 1, 1, 2]);
  const frames: number[] = [];
  assert.is(playableUntil({ segments, frames, duration: 50_000, done: true }), 50_000);
  assert.is(playableUntil({ segments, frames, duration: 50_000, done: false }), 44_999, 'not into the segment still being read');
  assert.is(playableUntil({ segments: segments.slice(0, 1), frames, duration: 20_000, done: false }), -1);
  assert.is(playableUntil({ segments: [], frames, duration: 0, done: true }), -1);
});

index('the frame on screen at a position is the last one made by then, as in a video', () => {
  const frames = [0, 500, 4_000, 12_000];
  assert.equal([0, 499, 500, 3_999, 4_000, 11_000, 99_000].map((p) => frameAt(frames, p)), [0, 0, 500, 500, 4_000, 4_000, 12_000]);
  assert.is(frameAt(frames, -5), 0);
  assert.is(frameAt([], 100), 0);
});

index('a malformed recording fails the index', async () => {
  try {
    await indexRecording(new Blob(['4.size,1.0,4.1280,3.800;4.sync,x.y;']));
    assert.unreachable();
  } catch (error) {
    assert.instance(error, Error);
  }
});

index.run();
