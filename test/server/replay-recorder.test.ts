// The run recorder (server/replay/recorder.ts) against a fake desktop and a temp dir: what the gzip file holds, read
// back with the gateway's own Guacamole parser (frames, images, their pixels, sync times), while it is written and
// after; the throttle and keyframes; and how it stops: a full disk, the quota, the desktop closing, stop() twice.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { constants, gunzipSync } from 'node:zlib';
import Guacamole from 'guacamole-common-js';
import type { Desktop, Rect } from '../../server/desktop/index.ts';
import { decodeOwnPng } from '../../server/desktop/rfb/png.ts';
import { GuacParser, type Instruction } from '../../server/desktop/view/codec.ts';
import { RunRecorder, type RecorderOptions, type RecorderStop } from '../../server/replay/recorder.ts';

/** The Desktop a recorder sees: a framebuffer the test paints, and the events it emits. */
class FakeDesktop extends EventEmitter {
  readonly agentId = 1;
  data: Buffer;
  constructor(public width = 64, public height = 48) {
    super();
    this.data = this.blank();
  }
  blank(): Buffer {
    const data = Buffer.alloc(this.width * this.height * 4, 255);
    for (let i = 0; i < data.length; i += 4) data[i] = (i / 4) % 251; // not flat, so a wrong offset shows
    return data;
  }
  framebuffer() {
    return { width: this.width, height: this.height, data: this.data };
  }
  /** Paints a rectangle in one colour (without emitting). */
  paint({ x, y, w, h }: Rect, rgb: [number, number, number]): void {
    for (let row = y; row < y + h; row++) {
      for (let col = x; col < x + w; col++) this.data.set([...rgb, 255], (row * this.width + col) * 4);
    }
  }
  /** Paints and tells, as the RFB client does after a framebuffer update. */
  change(rect: Rect, rgb: [number, number, number] = [200, 30, 60]): void {
    this.paint(rect, rgb);
    this.emit('update', [rect], []);
  }
  resize(width: number, height: number): void {
    this.width = width;
    this.height = height;
    this.data = this.blank();
    this.emit('resize', width, height);
  }
  listeners3(): number {
    return this.listenerCount('update') + this.listenerCount('resize') + this.listenerCount('closed');
  }
}

const dirs: string[] = [];
function recordingPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aw-replay-recorder-'));
  dirs.push(dir);
  return join(dir, 'run.guac.gz');
}

function record(desktop: FakeDesktop, options: Partial<RecorderOptions> = {}) {
  const path = options.path ?? recordingPath();
  const stops: [RecorderStop, string][] = [];
  const recorder = RunRecorder.start({
    desktop: desktop as unknown as Desktop, path, flushMs: 20, onStopped: (reason, message) => stops.push([reason, message]), ...options,
  });
  return { recorder, path, stops };
}

async function waitFor<T>(check: () => T | null | undefined | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Lets `ms` pass: only to show that nothing happens meanwhile (a positive outcome is always waited for). */
const observe = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Image = { x: number; y: number; mask: string; layer: string; mimetype: string; png: Buffer };
type Frame = { ts: number; size: string[] | null; images: Image[]; opcodes: string[] };

/** The file as it is now, read as a player reads it: gunzipped up to its last flush, parsed, cut at each sync. */
function readRecording(path: string): Frame[] {
  const text = gunzipSync(readFileSync(path), { finishFlush: constants.Z_SYNC_FLUSH }).toString('latin1');
  assert.ok(/^[\x20-\x7e]*$/.test(text), 'ASCII only: guacamole-common-js 1.5.0 counts UTF-16 units');
  const parser = new GuacParser({ maxBuffer: 1 << 24 });
  const frames: Frame[] = [];
  const ours: string[] = [];
  let frame: Frame = { ts: 0, size: null, images: [], opcodes: [] };
  const open = new Map<string, { img: Instruction; data: string }>();
  for (const ins of parser.feed(text)) {
    ours.push(`${ins.opcode} ${ins.args[0] ?? ''}`);
    frame.opcodes.push(ins.opcode);
    if (ins.opcode === 'size') frame.size = ins.args;
    else if (ins.opcode === 'img') open.set(ins.args[0], { img: ins, data: '' });
    else if (ins.opcode === 'blob') {
      assert.ok(ins.args[1].length <= 8064 && ins.args[1].length % 4 === 0, 'blobs of whole base64 quads, at most 8064');
      open.get(ins.args[0])!.data += ins.args[1];
    } else if (ins.opcode === 'end') {
      const { img, data } = open.get(ins.args[0])!;
      open.delete(ins.args[0]);
      const [, mask, layer, mimetype, x, y] = img.args;
      frame.images.push({ x: Number(x), y: Number(y), mask, layer, mimetype, png: Buffer.from(data, 'base64') });
    } else if (ins.opcode === 'sync') {
      assert.is(open.size, 0, 'every image stream ends before its frame does');
      frame.ts = Number(ins.args[0]);
      frames.push(frame);
      frame = { ts: 0, size: null, images: [], opcodes: [] };
    }
  }
  for (let i = 1; i < frames.length; i++) assert.ok(frames[i].ts > frames[i - 1].ts, 'sync times strictly increase');
  assert.equal(playerReading(text), ours, 'guacamole-common-js 1.5.0 reads the same instructions');
  return frames;
}

/** The file's frames, or null while it holds none yet (nothing flushed). */
function framesNow(path: string): Frame[] | null {
  try {
    const frames = readRecording(path);
    return frames.length ? frames : null;
  } catch {
    return null;
  }
}

/** The RGBA pixels of `rect` of the desktop's framebuffer. */
function pixels(desktop: FakeDesktop, { x, y, w, h }: Rect): Buffer {
  const out = Buffer.alloc(w * h * 4);
  for (let row = 0; row < h; row++) desktop.data.copy(out, row * w * 4, ((y + row) * desktop.width + x) * 4, ((y + row) * desktop.width + x + w) * 4);
  return out;
}

function assertImage(image: Image, desktop: FakeDesktop, rect: Rect, what: string): void {
  assert.equal([image.x, image.y, image.mask, image.layer, image.mimetype], [rect.x, rect.y, '14', '0', 'image/png'], what);
  const decoded = decodeOwnPng(image.png);
  assert.equal([decoded.width, decoded.height], [rect.w, rect.h], `${what}: size`);
  assert.ok(decoded.data.equals(pixels(desktop, rect)), `${what}: pixels`);
}

/** guacamole-common-js 1.5.0's own parser (what Guacamole.SessionRecording reads with), not in the package's types. */
type GuacJsParser = { oninstruction: ((opcode: string, args: string[]) => void) | null; receive(text: string): void };
const { Parser } = Guacamole as unknown as { Parser: new () => GuacJsParser };

/** Opcode and first argument of each instruction, as the player's parser reads them. */
function playerReading(text: string): string[] {
  const out: string[] = [];
  const parser = new Parser();
  parser.oninstruction = (opcode, args) => out.push(`${opcode} ${args[0] ?? ''}`);
  parser.receive(text);
  return out;
}

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

// ---

const frames = suite('replay recorder: frames');

frames.after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

frames('the first frame is the size, the whole screen as PNG and a sync at the start', async () => {
  const desktop = new FakeDesktop(64, 48);
  const { recorder, path } = record(desktop);
  desktop.paint({ x: 0, y: 0, w: 64, h: 48 }, [0, 0, 0]); // after start: the first frame holds the screen as it was
  const expected = new FakeDesktop(64, 48);
  const [first] = await waitFor(() => framesNow(path), 'the first frame in the file');
  assert.equal(first.opcodes.filter((o) => o !== 'blob'), ['size', 'img', 'end', 'sync']);
  assert.equal(first.size, ['0', '64', '48']);
  assert.is(first.ts, recorder.startedAt);
  assertImage(first.images[0], expected, { x: 0, y: 0, w: 64, h: 48 }, 'the whole screen');
  await recorder.stop();
});

frames('a change of 10x10 pixels writes one small image of exactly those pixels', async () => {
  const desktop = new FakeDesktop(64, 48);
  const { recorder, path } = record(desktop);
  desktop.change({ x: 20, y: 30, w: 10, h: 10 }, [10, 220, 90]);
  await recorder.frameNow();
  await recorder.stop();
  const [, second, ...rest] = readRecording(path);
  assert.is(second.size, null, 'no size again');
  assert.is(second.images.length, 1);
  assertImage(second.images[0], desktop, { x: 20, y: 30, w: 10, h: 10 }, 'the changed square');
  assert.ok(rest.every((f) => f.images.length === 0), 'nothing else but the closing sync');
});

frames('an unchanged screen writes nothing, not even a sync', async () => {
  const desktop = new FakeDesktop();
  const { recorder, path } = record(desktop, { minIntervalMs: 0, flushMs: 10 });
  await waitFor(() => recorder.bytes > 0, 'the first frame in the file');
  const bytes = recorder.bytes;
  await observe(300);
  assert.is(recorder.bytes, bytes);
  assert.is(readRecording(path).length, 1);
  await recorder.frameNow(); // nothing changed: still nothing
  const done = await recorder.stop();
  const all = readRecording(path);
  assert.is(all.length, 2, 'the first frame and the closing sync');
  assert.equal(all[1].opcodes, ['sync']);
  assert.equal(done.activity, [[recorder.startedAt, recorder.startedAt]]);
});

frames('copies and rectangles from outside the screen are recorded as the pixels they changed, clipped', async () => {
  const desktop = new FakeDesktop(200, 150); // far apart corners: two images, not one merged
  const { recorder, path } = record(desktop);
  desktop.paint({ x: 0, y: 0, w: 8, h: 8 }, [1, 2, 3]);
  desktop.paint({ x: 176, y: 132, w: 24, h: 18 }, [4, 5, 6]);
  const hostile = [{ x: -5, y: -5, w: 13, h: 13 }, { x: NaN, y: 0, w: 5, h: 5 }, { x: 1e9, y: 0, w: 5, h: 5 }, null, { x: 0, y: 0, w: -3, h: 4 }];
  desktop.emit('update', hostile, [{ src: { x: 0, y: 0, w: 100, h: 100 }, dx: 176, dy: 132 }, { nonsense: true }]);
  desktop.emit('update', 'not a list', 42);
  await recorder.frameNow();
  await recorder.stop();
  const images = readRecording(path)[1].images.sort((a, b) => a.x - b.x);
  assert.is(images.length, 2);
  assertImage(images[0], desktop, { x: 0, y: 0, w: 8, h: 8 }, 'the rect clipped at the top left');
  assertImage(images[1], desktop, { x: 176, y: 132, w: 24, h: 18 }, 'the copy destination clipped at the bottom right');
});

frames('a resize writes the new size and the whole screen', async () => {
  const desktop = new FakeDesktop(64, 48);
  const { recorder, path } = record(desktop);
  desktop.resize(80, 20);
  await recorder.frameNow();
  await recorder.stop();
  const second = readRecording(path)[1];
  assert.equal(second.size, ['0', '80', '20']);
  assertImage(second.images[0], desktop, { x: 0, y: 0, w: 80, h: 20 }, 'the resized screen');
});

frames('while the screen changes, a full-screen keyframe follows after keyframeMs', async () => {
  const desktop = new FakeDesktop(64, 48);
  // cpuShare 1: frames every minIntervalMs, whatever this machine's load makes the encodes cost.
  const { recorder, path } = record(desktop, { keyframeMs: 200, minIntervalMs: 10, cpuShare: 1 });
  let n = 0;
  const typing = setInterval(() => desktop.change({ x: n++ % 60, y: 5, w: 2, h: 2 }, [n % 256, 0, 0]), 15);
  try {
    const all = await waitFor(() => {
      const f = framesNow(path);
      return f && f.slice(1).some((x) => x.size === null && x.images.some((i) => i.png.readUInt32BE(16) === 64)) && f;
    }, 'a second full-screen image');
    const keyframe = all.findIndex((f, i) => i > 0 && f.images.some((img) => decodeOwnPng(img.png).width === 64));
    assert.ok(all[keyframe].ts - recorder.startedAt >= 200, 'not before keyframeMs');
    assert.ok(all.slice(1, keyframe).some((f) => f.images.length === 1 && decodeOwnPng(f.images[0].png).width < 64), 'small frames before it');
  } finally {
    clearInterval(typing);
    await recorder.stop();
  }
});

frames('activity is the spans with frames, those less than 2 s apart merged', async () => {
  let clock = 1_000_000;
  const desktop = new FakeDesktop();
  const { recorder } = record(desktop, { now: () => clock });
  for (const at of [1_000_500, 1_001_900, 1_010_000]) {
    clock = at;
    desktop.change({ x: 1, y: 1, w: 3, h: 3 }, [at % 256, 1, 1]);
    await recorder.frameNow();
  }
  clock = 1_020_000;
  const done = await recorder.stop();
  assert.equal(done.activity, [[1_000_000, 1_001_900], [1_010_000, 1_010_000]]);
  assert.is(done.durationMs, 20_000, 'until the stop: the closing sync');
  assert.is(done.reason, 'finished');
});

frames.run();

// ---

const pace = suite('replay recorder: pace and the file while written');

pace.after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

pace('with a tiny cpuShare, frames are spaced by their cost', async () => {
  const desktop = new FakeDesktop(320, 240);
  for (let i = 0; i < desktop.data.length; i++) desktop.data[i] = (i * 2654435761) >>> 24; // noise: a costly PNG
  // Every frame the whole screen: 230 KB of noise to deflate and gzip takes well over 1 ms, so at 5 % over 20 ms pass
  // (~200 ms on an idle machine; on a busy one more: the throttle counts wall-clock time).
  const { recorder, path } = record(desktop, { keyframeMs: 0, minIntervalMs: 0, cpuShare: 0.05 });
  const busy = setInterval(() => desktop.emit('update', [{ x: 0, y: 0, w: 1, h: 1 }], []), 5);
  try {
    const all = await waitFor(() => (framesNow(path)?.length ?? 0) >= 3 && framesNow(path), 'three frames', 30_000);
    for (let i = 1; i < all.length; i++) assert.ok(all[i].ts - all[i - 1].ts >= 20, `frame ${i} waited out the throttle`);
  } finally {
    clearInterval(busy);
    await recorder.stop();
  }
});

pace('frameNow writes at once, past minIntervalMs', async () => {
  const desktop = new FakeDesktop();
  const { recorder, path } = record(desktop, { minIntervalMs: 60_000 });
  await waitFor(() => framesNow(path), 'the first frame in the file');
  desktop.change({ x: 5, y: 5, w: 4, h: 4 });
  const asked = Date.now();
  await recorder.frameNow();
  const [, second] = await waitFor(() => framesNow(path)?.length === 2 && framesNow(path), 'the asked-for frame in the file');
  assert.ok(second.ts >= asked && second.ts <= Date.now(), 'its time is when it was asked for');
  assertImage(second.images[0], desktop, { x: 5, y: 5, w: 4, h: 4 }, 'the change');
  await recorder.stop();
});

pace('the file being written gunzips (Z_SYNC_FLUSH) to every frame flushed so far', async () => {
  const desktop = new FakeDesktop();
  const { recorder, path } = record(desktop, { flushMs: 30 });
  await waitFor(() => framesNow(path)?.length === 1, 'the first frame flushed');
  assert.throws(() => gunzipSync(readFileSync(path)), /unexpected end/, 'no gzip trailer yet: the file is still being written');
  for (let i = 1; i <= 3; i++) {
    desktop.change({ x: i * 8, y: 8, w: 6, h: 6 });
    await recorder.frameNow();
    await waitFor(() => framesNow(path)?.length === i + 1, `frame ${i + 1} flushed`);
  }
  assert.is(recorder.stopped, null);
  await waitFor(() => recorder.bytes === statSync(path).size, 'bytes counting what is in the file');
  await recorder.stop();
});

pace.run();

// ---

const stops = suite('replay recorder: stopping');

stops.after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

stops('stop() ends the file, lets go of the desktop and answers the same twice', async () => {
  const desktop = new FakeDesktop();
  const { recorder, path, stops: told } = record(desktop);
  desktop.change({ x: 0, y: 0, w: 5, h: 5 }); // not yet framed: stop() writes it as the last frame
  const [a, b] = await Promise.all([recorder.stop(), recorder.stop()]);
  const c = await recorder.stop();
  assert.equal(a, b);
  assert.equal(a, c);
  assert.is(a.reason, 'finished');
  assert.is(recorder.stopped, 'finished');
  assert.is(a.bytes, statSync(path).size);
  assert.is(a.bytes, recorder.bytes);
  assert.is((statSync(path).mode & 0o777).toString(8), '600');
  gunzipSync(readFileSync(path)); // complete: with its trailer
  assertImage(readRecording(path)[1].images[0], desktop, { x: 0, y: 0, w: 5, h: 5 }, 'the last change');
  assert.is(desktop.listeners3(), 0);
  assert.equal(told, [], 'onStopped is for stops by itself');
  desktop.change({ x: 0, y: 0, w: 5, h: 5 });
  await recorder.frameNow();
  assert.is(statSync(path).size, a.bytes, 'nothing after the stop');
});

stops('a full disk stops the recording (disk_full) once, detached, and the file keeps what was written', async () => {
  const desktop = new FakeDesktop();
  let writes = 0;
  // A real file whose disk fills after the first write.
  const filling = ((p: string, o: object) => {
    const stream = createWriteStream(p, o as never);
    const write = stream._write.bind(stream);
    stream._write = (chunk, encoding, cb) => (writes++ === 0 ? write(chunk, encoding, cb) : cb(enospc()));
    stream._writev = undefined;
    return stream;
  }) as typeof createWriteStream;
  const { recorder, path, stops: told } = record(desktop, { createWriteStream: filling });
  await waitFor(() => recorder.bytes > 0, 'the first frame in the file');
  desktop.change({ x: 1, y: 1, w: 8, h: 8 });
  await recorder.frameNow();
  await waitFor(() => recorder.stopped, 'the stop');
  assert.is(recorder.stopped, 'disk_full');
  assert.is(told.length, 1);
  assert.is(told[0][0], 'disk_full');
  assert.match(told[0][1], /no space left/);
  assert.is(desktop.listeners3(), 0);
  desktop.change({ x: 2, y: 2, w: 3, h: 3 }); // events after the stop go nowhere, and throw nothing
  desktop.emit('closed');
  const done = await recorder.stop();
  assert.is(done.reason, 'disk_full');
  assert.is(done.bytes, statSync(path).size);
  assert.is(readRecording(path).length, 1, 'the first frame is still there');
  assert.is(told.length, 1, 'told once');
});

stops('a write stream failing at once (ENOSPC) stops with disk_full and an empty result', async () => {
  const desktop = new FakeDesktop();
  const failing = (() => new Writable({ write: (_chunk, _enc, cb) => cb(enospc()) })) as unknown as typeof createWriteStream;
  const { recorder, stops: told } = record(desktop, { createWriteStream: failing });
  await waitFor(() => recorder.stopped, 'the stop');
  assert.equal(told.map(([reason]) => reason), ['disk_full']);
  assert.is(desktop.listeners3(), 0);
  const done = await recorder.stop();
  assert.is(done.reason, 'disk_full');
  assert.is(done.bytes, 0);
});

stops('a file that already exists is not overwritten: the recording stops with error', async () => {
  const desktop = new FakeDesktop();
  const path = recordingPath();
  writeFileSync(path, 'someone else’s');
  const { recorder, stops: told } = record(desktop, { path });
  await waitFor(() => recorder.stopped, 'the stop');
  assert.is(told[0][0], 'error');
  assert.match(told[0][1], /EEXIST/);
  assert.is(desktop.listeners3(), 0);
  await recorder.stop();
  assert.is(readFileSync(path, 'utf8'), 'someone else’s');
});

stops('the desktop closing stops it with desktop_closed and a complete file', async () => {
  const desktop = new FakeDesktop();
  const { recorder, path, stops: told } = record(desktop);
  desktop.emit('closed', new Error('connection lost'));
  assert.is(recorder.stopped, 'desktop_closed');
  assert.is(desktop.listeners3(), 0);
  const done = await recorder.stop();
  assert.is(done.reason, 'desktop_closed');
  assert.equal(told.map(([reason]) => reason), ['desktop_closed']);
  assert.is(done.bytes, statSync(path).size);
  gunzipSync(readFileSync(path)); // complete: with its trailer
  assert.ok(readRecording(path)[0].images.length === 1);
});

stops('fits saying no stops it with quota; the file keeps what fitted', async () => {
  const desktop = new FakeDesktop();
  const asked: number[] = [];
  const { recorder, path, stops: told } = record(desktop, {
    fits: async (total) => {
      asked.push(total);
      return asked.length === 1;
    },
  });
  await waitFor(() => recorder.bytes > 0, 'the first frame in the file');
  const fitted = recorder.bytes;
  assert.is(asked[0], fitted, 'asked with the size the file would have');
  desktop.change({ x: 3, y: 3, w: 7, h: 7 });
  await recorder.frameNow();
  await waitFor(() => recorder.stopped, 'the stop');
  assert.equal(told.map(([reason]) => reason), ['quota']);
  assert.ok(asked[1] > fitted);
  assert.is(desktop.listeners3(), 0);
  const done = await recorder.stop();
  assert.is(done.reason, 'quota');
  assert.is(done.bytes, fitted);
  assert.is(statSync(path).size, fitted);
  assert.is(readRecording(path).length, 1);
});

stops.run();
