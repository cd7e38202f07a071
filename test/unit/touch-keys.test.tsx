import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { KeyBar } from '../../src/screens/agent/live-desktop/touch/key-bar.tsx';
import { bindTextSink, keysymOf, SINK_FILL, textDiff } from '../../src/screens/agent/live-desktop/touch/text-sink.ts';

const hex = (keysym: number) => keysym.toString(16);

// ---

const pure = suite('phone keyboard: characters and changes');

pure('a character is its Latin-1 keysym or its Unicode one; newline and tab are Return and Tab', () => {
  assert.equal(['a', 'Z', ' ', '~', 'é', 'ж', '日', '😀', '\n', '\t'].map((c) => hex(keysymOf(c))),
    ['61', '5a', '20', '7e', 'e9', '1000436', '10065e5', '101f600', 'ff0d', 'ff09']);
});

pure('a change is what was erased from the end and what was typed after', () => {
  assert.equal(textDiff('  ab', '  abc'), { erase: 0, text: 'c' });
  assert.equal(textDiff('  teh', '  the '), { erase: 2, text: 'he ' });
  assert.equal(textDiff('  ab', ' '), { erase: 3, text: '' });
  assert.equal(textDiff('  😀', '  '), { erase: 1, text: '' }, 'an emoji is one character, not two halves');
});

pure.run();

// ---

const sink = suite('phone keyboard: the hidden field');
let field: HTMLTextAreaElement;
let sent: string[];
let stop: () => void;
sink.before.each(() => {
  reset();
  field = document.body.appendChild(document.createElement('textarea'));
  sent = [];
  ({ stop } = bindTextSink(field, (keysym) => void sent.push(hex(keysym))));
});
sink.after.each(() => stop());

/** The field's value as the phone's keyboard leaves it, and its input event. */
function type(value: string, isComposing = false) {
  field.value = value;
  field.dispatchEvent(new InputEvent('input', { bubbles: true, isComposing }));
}
const key = (key: string, init: KeyboardEventInit = {}) => {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
  field.dispatchEvent(event);
  return event;
};

sink('typed characters are sent as they come, and Backspace as what went', () => {
  assert.is(field.value, SINK_FILL);
  type(SINK_FILL + 'l');
  type(SINK_FILL + 'ls');
  type(SINK_FILL + 'l');
  assert.equal(sent, ['6c', '73', 'ff08']);
});

sink('Backspace into the spaces is sent too, and the field is filled again before it runs out', () => {
  for (let n = 0; n < 2 * SINK_FILL.length; n++) type(field.value.slice(0, -1));
  assert.equal(sent, Array(2 * SINK_FILL.length).fill('ff08'));
  assert.ok(field.value.length >= 3, `refilled: ${JSON.stringify(field.value)}`);
});

sink('a composition is sent once, as it ends, and none of its drafts', () => {
  field.dispatchEvent(new CompositionEvent('compositionstart', { data: '' }));
  type(SINK_FILL + 'に', true);
  type(SINK_FILL + 'にほ', true);
  type(SINK_FILL + '日本', true);
  assert.equal(sent, []);
  field.dispatchEvent(new CompositionEvent('compositionend', { data: '日本' }));
  assert.equal(sent, ['10065e5', '100672c']);
  type(SINK_FILL + '日本');
  assert.equal(sent, ['10065e5', '100672c'], 'an input event after the end sends nothing twice');
});

sink('a word corrected as it is committed sends the correction', () => {
  field.dispatchEvent(new CompositionEvent('compositionstart', { data: '' }));
  type(SINK_FILL + 't', true);
  type(SINK_FILL + 'te', true);
  type(SINK_FILL + 'teh', true);
  type(SINK_FILL + 'the', true);
  field.dispatchEvent(new CompositionEvent('compositionend', { data: 'the' }));
  assert.equal(sent, ['74', '68', '65']);
  field.dispatchEvent(new CompositionEvent('compositionstart', { data: '' }));
  type(SINK_FILL + 'the', true);
  type(SINK_FILL + 'then', true);
  field.dispatchEvent(new CompositionEvent('compositionend', { data: 'then' }));
  assert.equal(sent, ['74', '68', '65', '6e']);
});

sink('named keys go at their keydown and change nothing in the field; keyCode 229 is left to the input event', () => {
  const enter = key('Enter');
  assert.ok(enter.defaultPrevented);
  assert.equal(sent, ['ff0d']);
  const ime = key('Unidentified', { keyCode: 229 } as KeyboardEventInit);
  assert.not.ok(ime.defaultPrevented);
  const letter = key('a');
  assert.not.ok(letter.defaultPrevented, 'a character waits for its input event');
  const chord = key('c', { ctrlKey: true });
  assert.ok(chord.defaultPrevented);
  assert.equal(sent, ['ff0d', '63']);
});

sink('key events stay in the field: the page does not see its Escape', () => {
  let seen = 0;
  const count = () => void seen++;
  document.body.addEventListener('keydown', count);
  key('Escape');
  document.body.removeEventListener('keydown', count);
  assert.is(seen, 0);
  assert.equal(sent, ['ff1b']);
});

sink.run();

// ---

const bar = suite('phone keyboard: the key bar');
let container: HTMLElement;
let root: ReturnType<typeof createRoot>;
let keys: string[];
bar.before.each(async () => {
  reset();
  keys = [];
  container = document.body.appendChild(document.createElement('div'));
  root = createRoot(container);
  await act(async () => root.render(<KeyBar sendKey={(pressed, keysym) => void keys.push(`${pressed ? 'down' : 'up'} ${hex(keysym)}`)} />));
});
bar.after.each(async () => {
  await act(async () => root.unmount());
});

const button = (name: string) => [...container.querySelectorAll('button')].find((b) => (b.getAttribute('aria-label') ?? b.textContent) === name)!;
const tap = (name: string) => act(async () => button(name).click());

bar('Esc, Tab and the arrows are pressed and released', async () => {
  for (const name of ['Esc', 'Tab', 'Left arrow', 'Up arrow', 'Down arrow', 'Right arrow']) await tap(name);
  assert.equal(keys, ['down ff1b', 'up ff1b', 'down ff09', 'up ff09', 'down ff51', 'up ff51', 'down ff52', 'up ff52',
    'down ff54', 'up ff54', 'down ff53', 'up ff53']);
});

bar('Ctrl and Alt are held for the next key, typed or tapped, and then let go', async () => {
  await tap('Ctrl');
  assert.is(button('Ctrl').getAttribute('aria-pressed'), 'true');
  const field = container.querySelector('textarea')!;
  await act(async () => {
    field.value = SINK_FILL + 'c';
    field.dispatchEvent(new InputEvent('input', { bubbles: true }));
  });
  assert.equal(keys, ['down ffe3', 'down 63', 'up 63', 'up ffe3']);
  assert.is(button('Ctrl').getAttribute('aria-pressed'), 'false');
  keys.length = 0;
  await tap('Ctrl');
  await tap('Alt');
  await tap('Right arrow');
  assert.equal(keys, ['down ffe3', 'down ffe9', 'down ff53', 'up ff53', 'up ffe9', 'up ffe3']);
  assert.is(button('Alt').getAttribute('aria-pressed'), 'false');
});

bar('the Keyboard button focuses the hidden field (which opens a phone keyboard) and closes it again', async () => {
  const field = container.querySelector('textarea')!;
  assert.is(field.getAttribute('aria-label'), 'Type on the desktop');
  await tap('Keyboard');
  assert.is(document.activeElement, field);
  assert.is(button('Keyboard').getAttribute('aria-pressed'), 'true');
  await tap('Keyboard');
  assert.is.not(document.activeElement, field);
  assert.is(button('Keyboard').getAttribute('aria-pressed'), 'false');
});

bar("the bar's buttons do not take the focus from the field", async () => {
  const down = new MouseEvent('mousedown', { bubbles: true, cancelable: true });
  button('Esc').dispatchEvent(down);
  assert.ok(down.defaultPrevented);
});

bar.run();
