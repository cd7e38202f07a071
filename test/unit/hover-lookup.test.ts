// The take-over log's window lookup while the pointer rests (server/recording/hover-lookup.ts): when it asks the
// desktop, which changes of the screen make a click ask again, and that it asks nothing while a button is held or
// the screen keeps changing. Timed by a fake clock.
import { EventEmitter } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HoverLookup, POINTER_REACH, REST_MS, reachesPast } from '../../server/recording/hover-lookup.ts';
import type { Desktop } from '../../server/desktop/index.ts';
import { FakeClock } from './helpers/fake-clock.ts';

function setup() {
  const asked: [number, number][] = [];
  const desktop = Object.assign(new EventEmitter(), {
    windowAt: async (x: number, y: number) => {
      asked.push([x, y]);
      return `window ${asked.length}`;
    },
  });
  const clock = new FakeClock();
  const hover = new HoverLookup(() => desktop as unknown as Desktop, clock);
  const update = (x: number, y: number, w: number, h: number) => desktop.emit('update', [{ x, y, w, h }], []);
  return { asked, desktop, clock, hover, update };
}

test('the pointer at rest is looked up once, where it stopped; a click there takes that answer', async () => {
  const { asked, clock, hover } = setup();
  hover.moved(10, 10, 0);
  await clock.tick(REST_MS - 1);
  hover.moved(300, 200, 0); // still moving: the wait starts over
  await clock.tick(REST_MS - 1);
  assert.equal(asked, []);
  await clock.tick(1);
  assert.equal(asked, [[300, 200]]);
  hover.moved(300, 200, 1); // the click
  assert.is(await hover.windowAt(300, 200), 'window 1');
  assert.is(asked.length, 1, 'not asked again at the click');
});

test('a change reaching past the pointer forgets it; the pointer\'s own repaint, or a change elsewhere, does not', async () => {
  const { asked, clock, hover, update, desktop } = setup();
  hover.moved(300, 200, 0);
  await clock.tick(REST_MS);
  update(292, 192, 16, 16); // the pointer's shape, painted into the picture
  update(900, 600, 300, 100); // a clock in a corner
  assert.is(await hover.windowAt(300, 200), 'window 1');
  update(0, 0, 1280, 800); // a window over all of it
  assert.is(await hover.windowAt(300, 200), 'window 2');
  assert.equal(asked, [[300, 200], [300, 200]]);
  // A window moved under the pointer comes as a copy.
  hover.moved(301, 200, 0);
  await clock.tick(REST_MS);
  desktop.emit('update', [], [{ src: { x: 600, y: 0, w: 400, h: 300 }, dx: 200, dy: 100 }]);
  assert.is(await hover.windowAt(301, 200), 'window 4');
  assert.is(asked.length, 4);
});

test('a click elsewhere, or before the pointer rested, asks at once', async () => {
  const { asked, clock, hover } = setup();
  hover.moved(300, 200, 0);
  await clock.tick(REST_MS);
  hover.moved(500, 500, 1);
  assert.is(await hover.windowAt(500, 500), 'window 2');
  hover.moved(500, 500, 0);
  hover.moved(40, 40, 0);
  hover.moved(40, 40, 1);
  assert.is(await hover.windowAt(40, 40), 'window 3');
  assert.equal(asked, [[300, 200], [500, 500], [40, 40]]);
});

test('nothing is asked while a button is held, nor after changes alone; changes postpone a lookup to come', async () => {
  const { asked, clock, hover, update } = setup();
  hover.moved(100, 100, 1);
  hover.moved(200, 150, 1); // a drag
  await clock.tick(1000);
  assert.equal(asked, []);
  hover.moved(200, 150, 0); // let go: rests there
  await clock.tick(REST_MS - 10);
  update(0, 0, 50, 50); // the screen still changes
  await clock.tick(REST_MS - 1);
  assert.equal(asked, []);
  await clock.tick(1);
  assert.equal(asked, [[200, 150]]);
  // Typing: each echo changes the screen, and no lookup follows.
  for (let i = 0; i < 5; i++) {
    update(0, 0, 1280, 800);
    await clock.tick(200);
  }
  assert.is(asked.length, 1);
  assert.is(clock.pending, 0);
});

test('a take-over that ends stops listening; a restarted desktop is followed', async () => {
  const first = setup();
  first.hover.moved(1, 1, 0);
  assert.is(first.desktop.listenerCount('update'), 1);
  first.hover.dispose();
  assert.is(first.desktop.listenerCount('update'), 0);
  assert.is(first.clock.pending, 0);

  let current: EventEmitter = new EventEmitter();
  const hover = new HoverLookup(() => current as unknown as Desktop, new FakeClock());
  hover.moved(5, 5, 0);
  const old = current;
  current = new EventEmitter();
  hover.moved(6, 6, 0);
  assert.is(old.listenerCount('update'), 0);
  assert.is(current.listenerCount('update'), 1);
});

test('reachesPast: within the pointer\'s reach is its own; touching it and going farther is not; far away is nothing', () => {
  const p = { x: 300, y: 200 };
  assert.not.ok(reachesPast({ x: 300 - POINTER_REACH, y: 200 - POINTER_REACH, w: 2 * POINTER_REACH, h: 2 * POINTER_REACH }, p));
  assert.ok(reachesPast({ x: 300 - POINTER_REACH, y: 200, w: 2 * POINTER_REACH + 1, h: 1 }, p));
  assert.ok(reachesPast({ x: 0, y: 0, w: 1280, h: 800 }, p));
  assert.not.ok(reachesPast({ x: 300 + POINTER_REACH, y: 0, w: 500, h: 800 }, p), 'starts just past its reach');
  assert.not.ok(reachesPast({ x: 0, y: 0, w: 10, h: 10 }, p));
});

test.run();
