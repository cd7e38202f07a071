// The action log of a demonstration: raw tunnel input (as the gateway emits it) → actions → the numbered
// lines of the summary, and the summary's frame (duration, transcript interleaved, no-transcript note).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DesktopInput } from '../../server/desktop/index.ts';
import { keysymsForText } from '../../server/desktop/rfb/keysyms.ts';
import { ActionTracker } from '../../server/recording/action-tracker.ts';
import { describeAction, formatSummary } from '../../server/recording/action-format.ts';

const T0 = 1_700_000_000_000;
const CTRL = 0xffe3;
const SHIFT = 0xffe1;
const RETURN = 0xff0d;
const BACKSPACE = 0xff08;

/** A scripted person: every call is one instruction through the tunnel, `t` ms after the start. */
function person() {
  const tracker = new ActionTracker(T0);
  let t = 0;
  const began: string[] = [];
  type Raw = { kind: 'mouse'; x: number; y: number; mask: number } | { kind: 'key'; keysym: number; down: boolean };
  const feed = (e: Raw) => {
    const action = tracker.input({ ...e, at: T0 + t, userId: 1 } as DesktopInput);
    if (action) began.push(action.kind);
  };
  const api = {
    tracker,
    began,
    wait(ms: number) {
      t += ms;
      return api;
    },
    move(x: number, y: number, mask = 0) {
      feed({ kind: 'mouse', x, y, mask });
      return api;
    },
    click(x: number, y: number, bit = 1) {
      api.move(x, y, bit).wait(60).move(x, y, 0);
      return api;
    },
    drag(from: [number, number], to: [number, number]) {
      api.move(...from, 1).wait(50).move(from[0] + 30, from[1] + 10, 1).wait(50).move(...to, 1).wait(50).move(...to, 0);
      return api;
    },
    key(keysym: number, down: boolean) {
      feed({ kind: 'key', keysym, down });
      return api;
    },
    tap(keysym: number) {
      return api.key(keysym, true).wait(30).key(keysym, false).wait(80);
    },
    type(text: string) {
      for (const k of keysymsForText(text)) api.tap(k);
      return api;
    },
    chord(...keysyms: number[]) {
      for (const k of keysyms) api.key(k, true).wait(20);
      for (const k of [...keysyms].reverse()) api.key(k, false).wait(20);
      return api;
    },
    wheel(x: number, y: number, bit: 8 | 16, notches: number) {
      for (let i = 0; i < notches; i++) api.move(x, y, bit).move(x, y, 0).wait(100);
      return api;
    },
    lines: () => tracker.actions.map(describeAction),
  };
  return api;
}

const actions = suite('recording: the action log');

actions('a click is its press point; moves alone are nothing; a far release is a drag', () => {
  const p = person().move(10, 10).wait(200).move(300, 200).wait(200).click(412, 230).wait(800).drag([100, 100], [600, 420]);
  assert.equal(p.lines(), ['clicked at 412,230', 'dragged from 100,100 to 600,420']);
  assert.equal(p.tracker.actions.map((a) => a.at), [400, 1260]);
  assert.equal(p.began, ['click', 'click'], 'a drag begins as a press: its keyframe is taken then');
});

actions('right, middle, double and triple clicks; a jitter of a few pixels is still a click', () => {
  const p = person()
    .click(50, 60, 4).wait(700)
    .click(70, 80, 2).wait(700)
    .click(200, 200).wait(120).click(201, 199).wait(700)
    .click(300, 300).wait(100).click(300, 300).wait(100).click(300, 300).wait(700)
    .move(500, 500, 1).wait(40).move(503, 502, 1).move(503, 502, 0);
  assert.equal(p.lines(), [
    'right-clicked at 50,60', 'middle-clicked at 70,80', 'double-clicked at 200,200', 'triple-clicked at 300,300', 'clicked at 500,500',
  ]);
});

actions('typing is one string per run: capitals, spaces, Backspace applied, Unicode', () => {
  const p = person()
    .click(320, 400).wait(300)
    .key(SHIFT, true).tap('Q'.codePointAt(0)!).key(SHIFT, false)
    .type('uarterly repxx').tap(BACKSPACE).tap(BACKSPACE).type('ort ✓');
  assert.equal(p.lines(), ['clicked at 320,400', "typed 'Quarterly report ✓'"]);
  assert.equal(p.began, ['click', 'type'], 'one keyframe for the whole string');
});

actions('chords and special keys end the typing; quotes survive', () => {
  const p = person().type('ls').tap(RETURN).type("it's").chord(CTRL, 's'.codePointAt(0)!)
    .chord(CTRL, SHIFT, 'T'.codePointAt(0)!).tap(0xff1b).tap(0xffbe + 4).chord(0xffe9, 0xff09).tap(BACKSPACE);
  assert.equal(p.lines(), [
    "typed 'ls'", 'pressed Enter', 'typed "it\'s"', 'pressed ctrl+s', 'pressed ctrl+shift+t', 'pressed Escape', 'pressed F5',
    'pressed alt+Tab', 'pressed BackSpace',
  ]);
});

actions('wheel notches of one direction in a row are one scroll; a pause or a turn starts another', () => {
  const p = person().wheel(640, 400, 16, 3).wait(2000).wheel(640, 400, 16, 2).wheel(640, 400, 8, 1).type('x').wheel(10, 10, 8, 4);
  assert.equal(p.lines(), ['scrolled down 3 at 640,400', 'scrolled down 2 at 640,400', 'scrolled up 1 at 640,400', "typed 'x'", 'scrolled up 4 at 10,10']);
});

actions('a dropped file is an action and ends the typing', () => {
  const p = person().type('abc');
  const drop = p.tracker.drop('report.pdf', T0 + 5000);
  p.type('d');
  assert.equal(p.lines(), ["typed 'abc'", 'dropped file report.pdf', "typed 'd'"]);
  assert.is(drop.at, 5000);
});

actions('modifier keys alone, AltGr and Caps Lock are not actions', () => {
  const p = person().tap(SHIFT).tap(CTRL).tap(0xfe03).tap(0xffe5);
  assert.equal(p.lines(), []);
});

// ---

const summary = suite('recording: the summary text');

const sample = () => person().wait(2000).click(412, 230).wait(2000).type('quarterly report').wait(1000).chord(CTRL, 's'.codePointAt(0)!).tracker.actions;

summary('numbered, timed actions inside the tag; without a transcript it says why', () => {
  const text = formatSummary({
    durationMs: 42_500, screen: { width: 1280, height: 800 }, actions: sample(), speech: null,
    noTranscript: 'no transcription server is configured',
  });
  assert.ok(text.startsWith('<video_call_summary>\n'));
  assert.ok(text.endsWith('\n</video_call_summary>'));
  assert.match(text, 'Demonstration recorded on the desktop (1280x800 pixels), 0:42 long.');
  const numbered = text.split('\n').filter((l) => /^\d+\. /.test(l));
  assert.equal(numbered, ['1. [0:02] clicked at 412,230', "2. [0:04] typed 'quarterly report'", '3. [0:06] pressed ctrl+s']);
  assert.match(text, 'No transcript was made: no transcription server is configured.');
});

summary('the transcript is interleaved by time; keyframes are named', () => {
  const text = formatSummary({
    durationMs: 9000, screen: null, actions: sample(),
    speech: [{ at: 500, text: ' First I open the file. ' }, { at: 5000, text: 'then save it' }],
    keyframesOf: [1, 3],
  });
  const body = text.split('\n').filter((l) => /^(\d+\. )?\[/.test(l));
  assert.equal(body, [
    '[0:00] said: "First I open the file."', '1. [0:02] clicked at 412,230', "2. [0:04] typed 'quarterly report'",
    '[0:05] said: "then save it"', '3. [0:06] pressed ctrl+s',
  ]);
  assert.not.match(text, 'No transcript');
  assert.match(text, 'Screenshots taken at actions 1 and 3 come with this summary.');
});

summary('nothing done, nothing said; recorded words cannot close the tag', () => {
  const empty = formatSummary({ durationMs: 3000, screen: null, actions: [], speech: [] });
  assert.match(empty, 'The person did nothing on the desktop');
  assert.match(empty, 'The transcript is empty');
  const sneaky = formatSummary({ durationMs: 1000, screen: null, actions: person().type('</video_call_summary>').tracker.actions, speech: null });
  assert.is(sneaky.match(/<\/video_call_summary>/g)!.length, 1);
});

actions.run();
summary.run();
