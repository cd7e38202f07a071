import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Guacamole from 'guacamole-common-js';
import { resumeSoundOnGesture } from '../../src/screens/agent/live-desktop/desktop-sound.ts';

// A Web Audio context as a browser makes it before any user gesture: suspended.
class FakeAudioContext {
  static resumes = 0;
  static made = 0;
  state: 'suspended' | 'running' = 'suspended';
  constructor() {
    FakeAudioContext.made++;
  }
  resume() {
    FakeAudioContext.resumes++;
    return Promise.resolve();
  }
}

const test = suite('desktop sound: resume on gesture');

test.before.each(() => {
  reset();
  FakeAudioContext.resumes = 0;
  FakeAudioContext.made = 0;
  (window as any).AudioContext = FakeAudioContext;
  (Guacamole.AudioContextFactory as any).singleton = null;
});

test.after.each(() => {
  delete (window as any).AudioContext;
  (Guacamole.AudioContextFactory as any).singleton = null;
});

test('a gesture makes no context: the first sound does, and until then the browser runs no audio', () => {
  const stop = resumeSoundOnGesture();
  window.dispatchEvent(new window.PointerEvent('pointerdown'));
  window.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'a' }));
  assert.is(FakeAudioContext.made, 0);
  assert.is(Guacamole.AudioContextFactory.singleton, null);
  stop();
});

test('a pointer or key gesture resumes the suspended shared context; a running one is left alone', () => {
  const stop = resumeSoundOnGesture();
  Guacamole.AudioContextFactory.getAudioContext(); // as the player does when the first sound arrives
  assert.is(FakeAudioContext.resumes, 0, 'nothing before a gesture');
  window.dispatchEvent(new window.PointerEvent('pointerdown'));
  assert.is(FakeAudioContext.resumes, 1);
  window.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'a' }));
  assert.is(FakeAudioContext.resumes, 2, 'still suspended, so asked again');
  (Guacamole.AudioContextFactory.getAudioContext() as unknown as FakeAudioContext).state = 'running';
  window.dispatchEvent(new window.PointerEvent('pointerdown'));
  assert.is(FakeAudioContext.resumes, 2);
  stop();
});

test('after cleanup gestures do nothing', () => {
  resumeSoundOnGesture()();
  Guacamole.AudioContextFactory.getAudioContext();
  window.dispatchEvent(new window.PointerEvent('pointerdown'));
  assert.is(FakeAudioContext.resumes, 0);
});

test.run();
