import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Guacamole from 'guacamole-common-js';
import { playDesktopSound, resumeSoundOnGesture } from '../../src/screens/agent/live-desktop/desktop-sound.ts';

// A Web Audio context as a browser makes it: suspended before any user gesture, running after one. It
// logs what the page asks of it, and the sound the library's player schedules on it.
class FakeAudioContext {
  static startState: 'suspended' | 'running' = 'suspended';
  /** Set: a suspend stays under way (its state unchanged), as a browser's is for a moment. */
  static slowSuspend = false;
  static made = 0;
  static log: string[] = [];
  /** When each suspend was asked for (Date.now()). */
  static suspendedAt: number[] = [];
  state = FakeAudioContext.startState;
  currentTime = 0;
  destination = {};
  constructor() {
    FakeAudioContext.made++;
  }
  resume() {
    FakeAudioContext.log.push('resume');
    this.state = 'running';
    return Promise.resolve();
  }
  suspend() {
    FakeAudioContext.log.push('suspend');
    FakeAudioContext.suspendedAt.push(Date.now());
    if (!FakeAudioContext.slowSuspend) this.state = 'suspended';
    return Promise.resolve();
  }
  createBuffer(channels: number, samples: number) {
    const data = Array.from({ length: channels }, () => new Float32Array(samples));
    return { getChannelData: (channel: number) => data[channel] };
  }
  createBufferSource() {
    return { connect() {}, start: () => FakeAudioContext.log.push(`play (${this.state})`) };
  }
}

const QUIET_MS = 30;
const MIMETYPE = 'audio/L16;rate=44100,channels=2';
/** 50 ms of stereo 16-bit sound, as the gateway sends it: one base64 blob. */
const SOUND = Buffer.alloc(2205 * 4, 1).toString('base64');
const context = () => Guacamole.AudioContextFactory.singleton as unknown as FakeAudioContext | null;

async function until(test: () => boolean, what: string) {
  for (const deadline = Date.now() + 2000; !test(); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

/** A client as live-session.ts sets it up, and the audio stream the gateway opens on it. */
function soundStream(quietMs = QUIET_MS) {
  const client = { onaudio: null } as unknown as Guacamole.Client;
  playDesktopSound(client, quietMs);
  const stream = new (Guacamole.InputStream as any)(client, 1001) as Guacamole.InputStream;
  assert.ok(client.onaudio!(stream, MIMETYPE), 'a player for raw PCM');
  return stream;
}

const test = suite('desktop sound');

test.before.each(() => {
  reset();
  FakeAudioContext.made = 0;
  FakeAudioContext.log = [];
  FakeAudioContext.suspendedAt = [];
  FakeAudioContext.startState = 'running';
  FakeAudioContext.slowSuspend = false;
  (window as any).AudioContext = FakeAudioContext;
  (Guacamole.AudioContextFactory as any).singleton = null;
});

test.after.each(async () => {
  // Let a quiet spell still running end before the next test's context exists.
  await new Promise((r) => setTimeout(r, QUIET_MS + 20));
  delete (window as any).AudioContext;
  (Guacamole.AudioContextFactory as any).singleton = null;
});

test('a gesture makes no context: the first sound does, and until then the browser runs no audio', () => {
  const stop = resumeSoundOnGesture();
  window.dispatchEvent(new window.PointerEvent('pointerdown'));
  window.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'a' }));
  assert.is(FakeAudioContext.made, 0);
  assert.is(Guacamole.AudioContextFactory.singleton, null);
  soundStream();
  assert.is(FakeAudioContext.made, 1);
  stop();
});

test('after a quiet spell the context is suspended, and the next sound resumes it before it plays', async () => {
  const stop = resumeSoundOnGesture();
  const stream = soundStream();
  stream.onblob!(SOUND);
  assert.equal(FakeAudioContext.log, ['play (running)']);
  await until(() => context()!.state === 'suspended', 'the quiet spell');
  assert.equal(FakeAudioContext.log, ['play (running)', 'suspend']);
  window.dispatchEvent(new window.PointerEvent('pointerdown'));
  assert.is(context()!.state, 'suspended', 'a gesture does not wake a quiet context');
  stream.onblob!(SOUND);
  assert.equal(FakeAudioContext.log, ['play (running)', 'suspend', 'resume', 'play (running)']);
  await until(() => context()!.state === 'suspended', 'the second quiet spell');
  stop();
});

test('sound that comes while the suspend is still under way resumes it', async () => {
  FakeAudioContext.slowSuspend = true;
  const stream = soundStream();
  stream.onblob!(SOUND);
  await until(() => FakeAudioContext.log.includes('suspend'), 'the quiet spell');
  assert.is(context()!.state, 'running', 'the browser has not suspended it yet');
  stream.onblob!(SOUND);
  assert.equal(FakeAudioContext.log, ['play (running)', 'suspend', 'resume', 'play (running)'], 'resumed after the suspend');
});

test('sound that keeps coming keeps the context running: it is suspended a quiet spell after the last', async () => {
  const quietMs = QUIET_MS * 3;
  const stream = soundStream(quietMs);
  const sent: number[] = [];
  for (let i = 0; i < 6; i++) { // over more than one spell, a quarter of one apart
    sent.push(Date.now());
    stream.onblob!(SOUND);
    await new Promise((r) => setTimeout(r, quietMs / 4));
  }
  await until(() => context()!.state === 'suspended', 'the quiet spell');
  // Each suspend came a whole spell after the sound before it (on a loaded machine a gap between two
  // sounds may outlast the spell, and a suspend there is right).
  for (const at of FakeAudioContext.suspendedAt) {
    const last = sent.filter((t) => t <= at).at(-1)!;
    assert.ok(at - last >= quietMs - 1, `suspended ${at - last} ms after a sound: ${FakeAudioContext.log.join()}`);
  }
});

test('a context the browser held back: a gesture resumes it while sound plays; a running one is left alone', async () => {
  FakeAudioContext.startState = 'suspended';
  const stop = resumeSoundOnGesture();
  const stream = soundStream();
  stream.onblob!(SOUND);
  assert.equal(FakeAudioContext.log, ['play (suspended)'], 'the page may not start it on its own');
  window.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'a' }));
  assert.equal(FakeAudioContext.log, ['play (suspended)', 'resume']);
  window.dispatchEvent(new window.PointerEvent('pointerdown'));
  assert.equal(FakeAudioContext.log, ['play (suspended)', 'resume'], 'running: left alone');
  await until(() => context()!.state === 'suspended', 'the quiet spell');
  stop();
});

test('after cleanup gestures do nothing', () => {
  FakeAudioContext.startState = 'suspended';
  resumeSoundOnGesture()();
  soundStream().onblob!(SOUND);
  window.dispatchEvent(new window.PointerEvent('pointerdown'));
  assert.equal(FakeAudioContext.log, ['play (suspended)']);
});

test.run();
