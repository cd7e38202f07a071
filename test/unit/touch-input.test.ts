import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bindTouchInput, type MouseState, type TouchInput } from '../../src/screens/agent/live-desktop/touch/touch-input.ts';

const test = suite('touch input on the live view');

let surface: HTMLElement;
let display: HTMLElement;
let sent: string[];
let active: boolean;
let input: TouchInput;
let clock: number;

/** Boxes as the layout would measure them: the view 400×300 at (0, 100), the 1280×800 desktop in it as 400×250. */
function measure(element: HTMLElement, box: { left: number; top: number; width: number; height: number }) {
  element.getBoundingClientRect = () => ({ ...box, x: box.left, y: box.top, right: box.left + box.width, bottom: box.top + box.height }) as DOMRect;
}

test.before.each(() => {
  reset();
  surface = document.body.appendChild(document.createElement('div'));
  display = surface.appendChild(document.createElement('div'));
  measure(surface, { left: 0, top: 100, width: 400, height: 300 });
  measure(display, { left: 0, top: 125, width: 400, height: 250 });
  sent = [];
  active = true;
  clock = 0;
  const words = (s: MouseState) => `${s.left ? 'left' : s.right ? 'right' : s.down ? 'wheel-down' : s.up ? 'wheel-up' : 'move'} ${s.x},${s.y}`;
  input = bindTouchInput({
    surface, display, screenSize: () => ({ width: 1280, height: 800 }), active: () => active,
    send: (state) => void sent.push(words(state)), now: () => clock, gestures: { longPressMs: 30 },
  });
});
test.after.each(() => input.stop());

/** A touch event on the display (it bubbles to the view) for the fingers that changed. */
function touch(type: 'touchstart' | 'touchmove' | 'touchend', ...fingers: [number, number, number][]) {
  const touches = fingers.map(([identifier, clientX, clientY]) => new Touch({ identifier, target: display, clientX, clientY }));
  const event = new TouchEvent(type, { changedTouches: touches, touches, bubbles: true, cancelable: true });
  display.dispatchEvent(event);
  return event;
}

test('a tap clicks the desktop pixel under the finger, and the touch makes no mouse events', () => {
  const down = touch('touchstart', [1, 200, 250]);
  assert.ok(down.defaultPrevented);
  clock = 80;
  touch('touchend', [1, 200, 250]);
  assert.equal(sent, ['move 640,400', 'left 640,400', 'move 640,400']);
});

test('a long press right-clicks once its time is up', async () => {
  touch('touchstart', [1, 40, 150]);
  clock = 40;
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(sent, ['move 128,80', 'right 128,80', 'move 128,80']);
  touch('touchend', [1, 40, 150]);
  assert.is(sent.length, 3);
});

test('read-only: nothing reaches the desktop, but a pinch still zooms the view', () => {
  active = false;
  touch('touchstart', [1, 150, 250]);
  touch('touchstart', [2, 250, 250]);
  touch('touchmove', [1, 100, 250], [2, 300, 250]);
  assert.equal(sent, []);
  assert.match(display.style.transform, /scale\(2\)/);
  assert.is(input.view().scale, 2);
  input.reset();
  assert.is(display.style.transform, '');
});

test('a zoomed view clicks what is shown under the finger', () => {
  touch('touchstart', [1, 150, 250], [2, 250, 250]);
  touch('touchmove', [1, 100, 250], [2, 300, 250]);
  touch('touchend', [1, 100, 250], [2, 300, 250]);
  // The layout would now measure the transformed box: twice as large, moved by the transform.
  const { scale, x, y } = input.view();
  measure(display, { left: x, top: 125 + y, width: 400 * scale, height: 250 * scale });
  clock = 1000;
  touch('touchstart', [3, 200, 250]);
  touch('touchend', [3, 200, 250]);
  const expected = { x: Math.floor(((200 - x) / 800) * 1280), y: Math.floor(((250 - 125 - y) / 500) * 800) };
  assert.equal(sent, [`move ${expected.x},${expected.y}`, `left ${expected.x},${expected.y}`, `move ${expected.x},${expected.y}`]);
});

test('a two-finger drag is the wheel where the fingers are, and zooms nothing', () => {
  touch('touchstart', [1, 180, 200], [2, 220, 200]);
  touch('touchmove', [1, 180, 170], [2, 220, 170]);
  assert.equal(sent, ['move 640,240', 'wheel-down 640,144', 'move 640,144']);
  touch('touchend', [1, 180, 170], [2, 220, 170]);
  assert.is(display.style.transform, '');
});

test.run();
