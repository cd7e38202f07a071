import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import type { ReplayMarker } from '../../src/lib/replay-api.ts';
import { percentAt, ScrubBar } from '../../src/screens/replay/scrub-bar.tsx';

const MARKERS: ReplayMarker[] = [
  { at_ms: 0, kind: 'message', ref_id: 1, label: 'open a terminal' },
  { at_ms: 15_000, kind: 'model_call', ref_id: 11, label: '1,200 in / 34 out · $0.01' },
  { at_ms: 30_000, kind: 'action', ref_id: 12, label: 'click at 200, 300' },
  { at_ms: 60_000, kind: 'error', ref_id: null, label: 'failed' },
];

let root: Root | null = null;
let seeks: number[] = [];
let opened: number[] = [];

async function render(position = 0, current = -1) {
  if (!root) {
    const el = document.createElement('div');
    document.body.append(el);
    root = createRoot(el);
  }
  await act(async () => root!.render(
    <ScrubBar
      duration={60_000}
      position={position}
      markers={MARKERS}
      idle={[{ from_ms: 40_000, to_ms: 55_000 }]}
      current={current}
      onSeek={(p) => seeks.push(p)}
      onMarker={(i) => opened.push(i)}
    />,
  ));
}

const bar = () => document.querySelector<HTMLElement>('.scrub-bar')!;
const markerEls = () => [...document.querySelectorAll<HTMLElement>('.scrub-marker')];

/** happy-dom lays nothing out: the bar says it is 600 px wide, starting at x = 100. */
function layOut() {
  bar().getBoundingClientRect = () => ({ left: 100, right: 700, width: 600, top: 0, bottom: 28, height: 28, x: 100, y: 0, toJSON() {} });
}

async function clickAt(el: Element, clientX: number) {
  await act(async () => {
    el.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0, clientX }));
  });
}

const scrub = suite('replay: scrub bar');
scrub.before.each(() => {
  seeks = [];
  opened = [];
});
scrub.after.each(async () => {
  if (root) await act(async () => root!.unmount());
  root = null;
  reset();
});

scrub('places each marker by its time, coloured by its kind, and shades idle stretches', async () => {
  await render();
  assert.equal(markerEls().map((m) => m.style.left), ['0%', '25%', '50%', '100%']);
  assert.equal(markerEls().map((m) => m.dataset.kind), ['message', 'model_call', 'action', 'error']);
  assert.match(markerEls()[2].title, '0:30 · Action: click at 200, 300');
  const idle = document.querySelector<HTMLElement>('.scrub-idle')!;
  assert.is(idle.style.left, `${(40 / 60) * 100}%`);
  assert.is(idle.style.width, '25%');
});

scrub('shows the playhead and what has played, and says both to assistive technology', async () => {
  await render(45_000, 2);
  assert.is(document.querySelector<HTMLElement>('.scrub-playhead')!.style.left, '75%');
  assert.is(document.querySelector<HTMLElement>('.scrub-played')!.style.width, '75%');
  assert.is(bar().getAttribute('role'), 'slider');
  assert.is(bar().getAttribute('aria-valuenow'), '45');
  assert.is(bar().getAttribute('aria-valuetext'), '0:45 of 1:00');
  assert.equal(markerEls().map((m) => m.hasAttribute('data-current')), [false, false, true, false]);
});

scrub('a click on the bar seeks to where it landed, clamped to the run', async () => {
  await render();
  layOut();
  await clickAt(bar(), 250);
  await clickAt(bar(), 40);
  await clickAt(bar(), 9_999);
  assert.equal(seeks, [15_000, 0, 60_000]);
  assert.equal(opened, []);
});

scrub('a press seeks at once and drags; its click does not seek again', async () => {
  await render();
  layOut();
  const pointer = (type: string, clientX: number) =>
    act(async () => {
      bar().dispatchEvent(new PointerEvent(type, { bubbles: true, cancelable: true, button: 0, pointerId: 1, clientX }));
    });
  await pointer('pointerdown', 250.4);
  await pointer('pointermove', 400);
  await pointer('pointerup', 400);
  await clickAt(bar(), 400);
  assert.equal(seeks.map(Math.round), [15_040, 30_000]);
  // Moving without a press seeks nothing.
  await pointer('pointermove', 700);
  assert.is(seeks.length, 2);
});

scrub('a click on a marker opens it instead of seeking where the pointer was', async () => {
  await render();
  layOut();
  await clickAt(markerEls()[2], 303);
  assert.equal(opened, [2]);
  assert.equal(seeks, []);
});

scrub('Home and End go to the ends', async () => {
  await render(30_000);
  await act(async () => {
    bar().dispatchEvent(new KeyboardEvent('keydown', { key: 'End', bubbles: true, cancelable: true }));
    bar().dispatchEvent(new KeyboardEvent('keydown', { key: 'Home', bubbles: true, cancelable: true }));
  });
  assert.equal(seeks, [60_000, 0]);
});

scrub('an empty run puts everything at the start', () => {
  assert.is(percentAt(5_000, 0), 0);
  assert.is(percentAt(-10, 100), 0);
  assert.is(percentAt(500, 100), 100);
});

scrub.run();
