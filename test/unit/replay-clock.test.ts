import '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  advance, applyCommand, commandForKey, currentMarkerIndex, formatClock, INITIAL_CLOCK, JUMP_MS, nextMarkerIndex, outOfIdle,
  previousMarkerIndex, SPEEDS, stepSpeed, togglePlay, type ClockState, type Timeline,
} from '../../src/screens/replay/playback-clock.ts';
import { isReplayKey } from '../../src/screens/replay/use-replay-keys.ts';

const markers = [{ at_ms: 2_000 }, { at_ms: 5_000 }, { at_ms: 5_300 }, { at_ms: 40_000 }];
const timeline: Timeline = {
  duration: 60_000,
  idle: [{ from_ms: 10_000, to_ms: 30_000 }, { from_ms: 45_000, to_ms: 50_000 }],
  markers,
};
const playing = (fields: Partial<ClockState> = {}): ClockState => ({ ...INITIAL_CLOCK, playing: true, ...fields });

// ---

const speed = suite('replay clock: speed');

speed('moves by real time times the speed, for every speed offered', () => {
  assert.equal([...SPEEDS], [0.5, 1, 2, 4, 8]);
  for (const s of SPEEDS) assert.is(advance(playing({ position: 1_000, speed: s }), 100, timeline).position, 1_000 + 100 * s);
});

speed('a paused clock, or no time passing, stays put (the same object)', () => {
  const paused = { ...INITIAL_CLOCK, position: 3_000 };
  assert.is(advance(paused, 500, timeline), paused);
  const running = playing({ position: 3_000 });
  assert.is(advance(running, 0, timeline), running);
});

speed('stops at the end of the run', () => {
  const end = advance(playing({ position: 59_900, speed: 8 }), 100, timeline);
  assert.equal(end, { ...INITIAL_CLOCK, position: 60_000, playing: false, speed: 8 });
});

speed('play at the end starts again from the beginning; pause keeps the place', () => {
  const atEnd = { ...INITIAL_CLOCK, position: 60_000 };
  assert.equal(togglePlay(atEnd, timeline), { ...atEnd, position: 0, playing: true });
  assert.equal(togglePlay(playing({ position: 7_000 }), timeline), { ...INITIAL_CLOCK, position: 7_000 });
  // An empty run has nothing to play.
  assert.is(togglePlay(INITIAL_CLOCK, { ...timeline, duration: 0 }).playing, false);
});

speed('the speed menu steps through the speeds and stays at the ends', () => {
  assert.is(stepSpeed(1, 1), 2);
  assert.is(stepSpeed(8, 1), 8);
  assert.is(stepSpeed(0.5, -1), 0.5);
  assert.is(stepSpeed(4, -1), 2);
});

speed.run();

// ---

const idle = suite('replay clock: skip idle');

idle('without skipping, the clock plays through idle stretches', () => {
  assert.is(advance(playing({ position: 9_900 }), 200, timeline).position, 10_100);
});

idle('skipping, a step into an idle stretch lands at its end', () => {
  assert.is(advance(playing({ position: 9_900, skipIdle: true }), 200, timeline).position, 30_000);
  assert.is(advance(playing({ position: 44_000, skipIdle: true, speed: 8 }), 250, timeline).position, 50_000);
});

idle('touching or chained stretches are skipped in one go, and an end at the very end stops the clock', () => {
  const chained = [{ from_ms: 1_000, to_ms: 2_000 }, { from_ms: 2_000, to_ms: 3_000 }, { from_ms: 2_500, to_ms: 9_000 }];
  assert.is(outOfIdle(1_500, chained), 9_000);
  assert.is(outOfIdle(999, chained), 999);
  const tail = { ...timeline, idle: [{ from_ms: 55_000, to_ms: 60_000 }] };
  assert.equal(advance(playing({ position: 54_990, skipIdle: true }), 20, tail), { ...INITIAL_CLOCK, position: 60_000, skipIdle: true });
});

idle('play from inside an idle stretch starts at its end when skipping', () => {
  assert.is(togglePlay({ ...INITIAL_CLOCK, position: 12_000, skipIdle: true }, timeline).position, 30_000);
  assert.is(togglePlay({ ...INITIAL_CLOCK, position: 12_000 }, timeline).position, 12_000);
});

idle.run();

// ---

const marks = suite('replay clock: markers, ← and →');

marks('the current marker is the last at or before the playhead', () => {
  assert.is(currentMarkerIndex(markers, 0), -1);
  assert.is(currentMarkerIndex(markers, 2_000), 0);
  assert.is(currentMarkerIndex(markers, 5_299), 1);
  assert.is(currentMarkerIndex(markers, 59_000), 3);
});

marks('of markers at the same moment, the opened one stays current', () => {
  const tied = [{ at_ms: 1_000 }, { at_ms: 1_000 }, { at_ms: 1_000 }, { at_ms: 4_000 }];
  assert.is(currentMarkerIndex(tied, 1_000), 2);
  assert.is(currentMarkerIndex(tied, 1_000, 0), 0);
  assert.is(currentMarkerIndex(tied, 4_000, 0), 3);
  // → goes through them one by one.
  assert.is(nextMarkerIndex(tied, 1_000, 0), 1);
  assert.is(nextMarkerIndex(tied, 1_000, 1), 2);
});

marks('→ goes to the next marker, and does nothing after the last', () => {
  assert.is(nextMarkerIndex(markers, 0), 0);
  assert.is(nextMarkerIndex(markers, 2_000), 1);
  assert.is(nextMarkerIndex(markers, 41_000), -1);
  const { state, marker } = applyCommand({ ...INITIAL_CLOCK, position: 2_000 }, 'next', timeline);
  assert.is(marker, 1);
  assert.is(state.position, 5_000);
  const last = { ...INITIAL_CLOCK, position: 50_000 };
  assert.equal(applyCommand(last, 'next', timeline), { state: last, marker: null });
});

marks('← goes back to the start of the current marker, or to the one before when standing on it', () => {
  assert.is(previousMarkerIndex(markers, 5_000), 0);
  assert.is(previousMarkerIndex(markers, 7_000), 2);
  assert.is(previousMarkerIndex(markers, 5_300), 1);
  assert.is(previousMarkerIndex(markers, 1_000), -1);
  // Markers at the same moment, one by one from the opened one.
  const tied = [{ at_ms: 1_000 }, { at_ms: 1_000 }, { at_ms: 4_000 }];
  assert.is(previousMarkerIndex(tied, 1_000, { anchor: 1 }), 0);
  assert.is(previousMarkerIndex(tied, 4_000), 1);
  assert.equal(applyCommand({ ...INITIAL_CLOCK, position: 1_000 }, 'previous', timeline).state.position, 0);
});

marks('while playing, ← twice goes back two markers (one just passed counts as not passed)', () => {
  const first = applyCommand(playing({ position: 5_600, speed: 2 }), 'previous', timeline);
  assert.is(first.marker, 1);
  // 150 ms later at 2×: marker 2 (5.3 s) was passed again on the way, but only just.
  const second = applyCommand({ ...first.state, position: first.state.position + 300 }, 'previous', timeline, first.marker);
  assert.is(second.marker, 0);
  assert.is(second.state.position, 2_000);
  assert.is(second.state.playing, true);
  // Long past the marker gone to, ← restarts the one playing.
  assert.is(applyCommand(playing({ position: 20_000 }), 'previous', timeline, 0).marker, 2);
});

marks.run();

// ---

const keys = suite('replay clock: keys (J/K/L as on YouTube)');

keys('each key names its command; others are left alone', () => {
  assert.is(commandForKey('ArrowLeft'), 'previous');
  assert.is(commandForKey('ArrowRight'), 'next');
  assert.is(commandForKey(' '), 'toggle');
  assert.is(commandForKey('k'), 'toggle');
  assert.is(commandForKey('K'), 'toggle');
  assert.is(commandForKey('j'), 'back');
  assert.is(commandForKey('L'), 'forward');
  assert.is(commandForKey('ArrowUp'), null);
  assert.is(commandForKey('Enter'), null);
});

keys('J goes back 10 s, L forward 10 s, within the run; K plays and pauses', () => {
  const at = { ...INITIAL_CLOCK, position: 25_000 };
  assert.is(applyCommand(at, 'back', timeline).state.position, 25_000 - JUMP_MS);
  assert.is(applyCommand(at, 'forward', timeline).state.position, 25_000 + JUMP_MS);
  assert.is(applyCommand({ ...at, position: 4_000 }, 'back', timeline).state.position, 0);
  assert.is(applyCommand({ ...at, position: 55_000 }, 'forward', timeline).state.position, 60_000);
  const played = applyCommand(at, 'toggle', timeline).state;
  assert.is(played.playing, true);
  assert.is(applyCommand(played, 'toggle', timeline).state.playing, false);
});

keys('keys do not act while typing, in a dialog or tab list, with a modifier, or as space on a button', () => {
  const key = (k: string, target: Element | null, extra: Partial<KeyboardEvent> = {}) =>
    isReplayKey({ key: k, altKey: false, ctrlKey: false, metaKey: false, defaultPrevented: false, target, ...extra });
  document.body.innerHTML = `
    <input id="field"><textarea id="area"></textarea><select id="pick"></select>
    <div role="dialog"><button id="in-dialog">x</button></div>
    <div role="tablist"><button id="tab">t</button></div>
    <button id="button">b</button><div id="plain" tabindex="0"></div>`;
  const $ = (id: string) => document.getElementById(id);
  assert.ok(key('ArrowRight', document.body));
  assert.ok(key('k', $('plain')));
  assert.ok(key('ArrowLeft', $('button')), 'arrows work from a focused button');
  assert.not.ok(key(' ', $('button')), 'space presses the button instead');
  assert.ok(key(' ', $('plain')));
  for (const id of ['field', 'area', 'pick', 'in-dialog', 'tab']) assert.not.ok(key('j', $(id)), id);
  assert.not.ok(key('ArrowRight', document.body, { ctrlKey: true }));
  assert.not.ok(key('ArrowRight', document.body, { defaultPrevented: true }));
  assert.not.ok(key('x', document.body));
  document.body.innerHTML = '';
});

keys('times read as m:ss, and h:mm:ss from an hour', () => {
  assert.is(formatClock(0), '0:00');
  assert.is(formatClock(65_400), '1:05');
  assert.is(formatClock(3_725_000), '1:02:05');
  assert.is(formatClock(-5), '0:00');
});

keys.run();
