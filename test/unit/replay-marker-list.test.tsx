import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MarkerList } from '../../src/screens/replay/marker-list.tsx';
import { REPLAY } from './helpers/replay-fakes.ts';

let root: Root | null = null;
let selected: number[] = [];
const ROW = 30;

async function render(current: number, opened: number | null = null) {
  if (!root) {
    const el = document.createElement('div');
    document.body.append(el);
    root = createRoot(el);
  }
  await act(async () => root!.render(<MarkerList markers={REPLAY.markers} current={current} opened={opened} onSelect={(i) => selected.push(i)} />));
}

/** happy-dom lays nothing out: rows of 30 px in a list that shows 2 of them. */
function layOut() {
  const list = document.querySelector<HTMLElement>('.marker-list')!;
  Object.defineProperty(list, 'clientHeight', { configurable: true, value: 2 * ROW });
  document.querySelectorAll<HTMLElement>('.marker-list li').forEach((li, i) => {
    Object.defineProperty(li, 'offsetTop', { configurable: true, value: i * ROW });
    Object.defineProperty(li, 'offsetHeight', { configurable: true, value: ROW });
  });
  return list;
}

const items = () => [...document.querySelectorAll<HTMLButtonElement>('.marker-item')];

const list = suite('replay: marker list');
list.before.each(() => {
  selected = [];
});
list.after.each(async () => {
  if (root) await act(async () => root!.unmount());
  root = null;
  reset();
});

list('each marker shows its time, kind and label, coloured by kind', async () => {
  await render(-1);
  assert.equal(items().map((b) => [b.querySelector('.marker-time')!.textContent, b.querySelector('.marker-kind')!.textContent]), [
    ['0:01', 'Message'], ['0:05', 'Model call'], ['0:06', 'Action'], ['0:20', 'Take-over'], ['0:58', 'Error'],
  ]);
  assert.is(items()[2].querySelector('.marker-label')!.textContent, 'type "ls"');
  assert.is(items()[3].dataset.kind, 'takeover');
});

list('highlights only the current marker, and marks the opened one', async () => {
  await render(-1);
  assert.equal(items().map((b) => b.getAttribute('aria-current')), [null, null, null, null, null]);
  await render(2, 1);
  assert.equal(items().map((b) => b.getAttribute('aria-current')), [null, null, 'step', null, null]);
  assert.equal(items().map((b) => b.hasAttribute('data-opened')), [false, true, false, false, false]);
});

list('keeps the current marker in view by scrolling the list, down and back up', async () => {
  await render(0);
  const box = layOut();
  await render(3);
  assert.is(box.scrollTop, 4 * ROW - 2 * ROW, 'row 3 at the bottom of the view');
  await render(2);
  assert.is(box.scrollTop, 2 * ROW, 'row 2 is at the top, still in view');
  await render(0);
  assert.is(box.scrollTop, 0);
});

list('a click selects the marker', async () => {
  await render(-1);
  await act(async () => items()[4].click());
  assert.equal(selected, [4]);
});

list('a run without markers says so', async () => {
  const el = document.createElement('div');
  document.body.append(el);
  root = createRoot(el);
  await act(async () => root!.render(<MarkerList markers={[]} current={-1} opened={null} onSelect={() => {}} />));
  assert.is(document.body.textContent, 'No markers in this run.');
});

list.run();
