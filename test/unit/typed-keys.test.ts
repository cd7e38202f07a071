import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Guacamole from 'guacamole-common-js';
import { pressTypedKeysAtKeydown, typedKeysym } from '../../src/screens/agent/live-desktop/typed-keys.ts';

const test = suite('typed keys at keydown');

/** The real Guacamole.Keyboard on an element, with the fast path on or off, and what it sent in order. */
function keyboardOn(fastPath: boolean) {
  reset();
  const element = document.body.appendChild(document.createElement('div'));
  const keyboard = new Guacamole.Keyboard(element);
  const sent: string[] = [];
  keyboard.onkeydown = (keysym) => {
    sent.push(`down ${keysym.toString(16)}`);
    return false;
  };
  keyboard.onkeyup = (keysym) => void sent.push(`up ${keysym.toString(16)}`);
  const stop = pressTypedKeysAtKeydown(element, keyboard, () => fastPath);
  // As Chromium sends them: keydown and keyup carry the key's code, keypress the character's.
  const fire = (type: 'keydown' | 'keypress' | 'keyup', key: string, keyCode: number, init: KeyboardEventInit = {}) =>
    element.dispatchEvent(new KeyboardEvent(type, { key, keyCode, which: keyCode, bubbles: true, cancelable: true, ...init } as KeyboardEventInit));
  return { keyboard, sent, fire, stop };
}

test('a typed character is sent at its keydown, once, and released at its keyup', () => {
  const { sent, fire } = keyboardOn(true);
  fire('keydown', 'x', 88);
  assert.equal(sent, ['down 78'], 'sent before the keypress');
  fire('keypress', 'x', 120);
  assert.equal(sent, ['down 78'], 'the keypress sends nothing more');
  fire('keyup', 'x', 88);
  assert.equal(sent, ['down 78', 'up 78']);
});

test('without it, the keyboard waits for the keypress (what the fast path saves)', () => {
  const { sent, fire } = keyboardOn(false);
  fire('keydown', 'x', 88);
  assert.equal(sent, []);
  fire('keypress', 'x', 120);
  fire('keyup', 'x', 88);
  assert.equal(sent, ['down 78', 'up 78']);
});

test('shifted characters, and characters beyond Latin-1, are the keysyms the keypress would give', () => {
  const { sent, fire } = keyboardOn(true);
  fire('keydown', 'Shift', 16, { shiftKey: true, location: 1 });
  fire('keydown', 'X', 88, { shiftKey: true });
  assert.equal(sent, ['down ffe1', 'down 58'], 'sent at the keydown');
  fire('keypress', 'X', 88, { shiftKey: true });
  fire('keyup', 'X', 88, { shiftKey: true });
  fire('keyup', 'Shift', 16, { location: 1 });
  fire('keydown', 'ж', 186);
  assert.is(sent.at(-1), 'down 1000436', 'sent at the keydown');
  fire('keypress', 'ж', 0x436);
  fire('keyup', 'ж', 186);
  assert.equal(sent, ['down ffe1', 'down 58', 'up 58', 'up ffe1', 'down 1000436', 'up 1000436']);
});

test('a repeated keydown of a held key sends no second press', () => {
  const { sent, fire } = keyboardOn(true);
  fire('keydown', 'a', 65);
  fire('keypress', 'a', 97);
  fire('keydown', 'a', 65, { repeat: true });
  fire('keypress', 'a', 97, { repeat: true });
  fire('keyup', 'a', 65);
  assert.equal(sent, ['down 61', 'up 61']);
});

test('stopped, it leaves keys to the keyboard', () => {
  const { sent, fire, stop } = keyboardOn(true);
  stop();
  fire('keydown', 'x', 88);
  assert.equal(sent, []);
});

test('only a character the keydown can name is typed early', () => {
  const { keyboard } = keyboardOn(true);
  const at = (key: string, init: KeyboardEventInit = {}) => typedKeysym(new KeyboardEvent('keydown', { key, ...init }), keyboard);
  assert.is(at('x'), 0x78);
  assert.is(at('é'), 0xe9);
  assert.is(at(' '), 0x20);
  assert.is(at('Enter'), null, 'a named key');
  assert.is(at('Dead'), null, 'a dead key waits for what it makes');
  assert.is(at('😀'), null, 'astral: two UTF-16 units, which the keypress would not give');
  assert.is(at('x', { ctrlKey: true }), null);
  assert.is(at('x', { altKey: true }), null);
  assert.is(at('x', { metaKey: true }), null);
  assert.is(at('1', { location: KeyboardEvent.DOM_KEY_LOCATION_NUMPAD }), null, 'the keypad has keysyms of its own');
  assert.is(at('x', { isComposing: true }), null);
  assert.is(at('x', { keyCode: 229 } as KeyboardEventInit), null, 'an IME owns the key');
  // The keyboard resyncs its modifiers only when it interprets the event: typed early, a mismatch would
  // reach the desktop before the resync does.
  keyboard.modifiers.shift = true;
  assert.is(at('x'), null);
  assert.is(at('X', { shiftKey: true }), 0x58);
});

test.run();
