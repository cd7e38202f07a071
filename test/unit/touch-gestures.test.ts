import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GestureRecognizer, type GestureAction } from '../../src/screens/agent/live-desktop/touch/gestures.ts';

/** Actions as short words: "move 10,20", "left 10,20" (left held there), "right …", "wheel-down …", "zoom 2@55,60". */
function words(actions: GestureAction[]): string[] {
  return actions.map((a) => {
    if (a.kind === 'zoom-start') return `zoom-start ${a.distance}@${a.mid.x},${a.mid.y}`;
    if (a.kind === 'zoom') return `zoom ${a.distance}@${a.mid.x},${a.mid.y}`;
    if (a.kind === 'zoom-end') return 'zoom-end';
    const held = a.left ? 'left' : a.right ? 'right' : a.up ? 'wheel-up' : a.down ? 'wheel-down' : 'move';
    return `${held} ${a.at.x},${a.at.y}`;
  });
}

const p = (x: number, y: number) => ({ x, y });

// ---

const taps = suite('touch gestures: one finger');

taps('a tap is a left click where the finger went down', () => {
  const g = new GestureRecognizer();
  assert.equal(g.down(1, p(100, 50), 0), []);
  assert.equal(words(g.move([{ id: 1, at: p(104, 53) }])), [], 'a jitter within the slop is still a tap');
  assert.equal(words(g.up(1, 120)), ['move 100,50', 'left 100,50', 'move 100,50']);
});

taps('a second tap soon and near clicks where the first did, so the desktop sees a double click', () => {
  const g = new GestureRecognizer();
  g.down(1, p(100, 50), 0);
  g.up(1, 80);
  g.down(2, p(112, 58), 200);
  assert.equal(words(g.up(2, 260)), ['move 100,50', 'left 100,50', 'move 100,50']);
  g.down(3, p(112, 58), 400);
  assert.equal(words(g.up(3, 450)), ['move 112,58', 'left 112,58', 'move 112,58'], 'a third tap starts anew');
  g.down(4, p(112, 58), 2000);
  assert.equal(words(g.up(4, 2050)), ['move 112,58', 'left 112,58', 'move 112,58']);
  g.down(5, p(200, 58), 2100);
  assert.equal(words(g.up(5, 2150)), ['move 200,58', 'left 200,58', 'move 200,58'], 'too far for a double click');
});

taps('a finger held still is a right click once the long press is due, and its lifting does nothing more', () => {
  const g = new GestureRecognizer();
  g.down(1, p(30, 40), 1000);
  assert.ok(g.waitingForLongPress);
  assert.equal(g.longPress(1400), [], 'not yet');
  g.move([{ id: 1, at: p(33, 42) }]);
  assert.equal(words(g.longPress(1500)), ['move 30,40', 'right 30,40', 'move 30,40']);
  assert.not.ok(g.waitingForLongPress);
  assert.equal(g.move([{ id: 1, at: p(90, 90) }]), []);
  assert.equal(g.up(1, 1900), []);
});

taps('a drag holds the left button from where it started to where the finger lets go', () => {
  const g = new GestureRecognizer();
  g.down(1, p(10, 10), 0);
  assert.equal(words(g.move([{ id: 1, at: p(30, 10) }])), ['move 10,10', 'left 10,10', 'left 30,10']);
  assert.not.ok(g.waitingForLongPress, 'a moving finger is no long press');
  assert.equal(g.longPress(900), []);
  assert.equal(words(g.move([{ id: 1, at: p(50, 20) }])), ['left 50,20']);
  assert.equal(words(g.up(1, 1000)), ['move 50,20']);
});

taps('a cancelled drag lets go of the button and a cancelled tap clicks nothing', () => {
  const g = new GestureRecognizer();
  g.down(1, p(10, 10), 0);
  g.move([{ id: 1, at: p(40, 10) }]);
  assert.equal(words(g.cancel(1)), ['move 40,10']);
  g.down(2, p(10, 10), 100);
  assert.equal(g.cancel(2), []);
  assert.equal(g.up(2, 200), [], 'an unknown finger');
});

taps.run();

// ---

const two = suite('touch gestures: two fingers');

/** Both fingers moved in one touchmove. */
const both = (a: [number, number], b: [number, number]) => [{ id: 1, at: p(...a) }, { id: 2, at: p(...b) }];

two('two fingers dragged up scroll the desktop down, one wheel click per step, at their midpoint', () => {
  const g = new GestureRecognizer({ wheelStep: 20 });
  g.down(1, p(100, 200), 0);
  g.down(2, p(140, 200), 30);
  assert.not.ok(g.waitingForLongPress);
  assert.equal(g.move(both([100, 196], [140, 196])), [], 'within the slop');
  assert.equal(words(g.move(both([100, 190], [140, 190]))), ['move 120,200'], 'past it: the pointer goes to where they started');
  assert.equal(words(g.move(both([100, 175], [140, 175]))), ['wheel-down 120,175', 'move 120,175']);
  assert.equal(words(g.move(both([100, 150], [140, 150]))), ['wheel-down 120,150', 'move 120,150']);
  assert.equal(words(g.move(both([100, 110], [140, 110]))), ['wheel-down 120,110', 'move 120,110', 'wheel-down 120,110', 'move 120,110']);
  assert.equal(words(g.move(both([100, 145], [140, 145]))), ['wheel-up 120,145', 'move 120,145'], 'and back down: up');
  assert.equal(g.up(1, 500), []);
  assert.equal(g.move([{ id: 2, at: p(140, 300) }]), [], 'one finger left of two does nothing');
  assert.equal(g.up(2, 600), []);
  assert.equal(words((g.down(3, p(5, 5), 700), g.up(3, 750))), ['move 5,5', 'left 5,5', 'move 5,5'], 'then taps again');
});

two('two fingers one above the other, dragged together, scroll too', () => {
  const g = new GestureRecognizer();
  g.down(1, p(100, 100), 0);
  g.down(2, p(100, 160), 10);
  assert.equal(words(g.move(both([100, 88], [100, 148]))), ['move 100,130']);
});

two('fingers moving apart pinch: the zoom starts from where they were, and ends when one lifts', () => {
  const g = new GestureRecognizer({ pinchSlop: 24 });
  g.down(1, p(100, 100), 0);
  g.down(2, p(200, 100), 10);
  assert.equal(g.move([{ id: 2, at: p(206, 100) }]), [], 'six pixels wider: not yet');
  assert.equal(words(g.move([{ id: 1, at: p(80, 100) }])), ['zoom-start 100@150,100', 'zoom 126@143,100']);
  assert.equal(words(g.move([{ id: 2, at: p(250, 100) }])), ['zoom 170@165,100']);
  assert.equal(words(g.up(2, 300)), ['zoom-end']);
  assert.equal(g.up(1, 320), []);
});

two('one finger held still while the other moves away is a pinch, not a two-finger drag', () => {
  const g = new GestureRecognizer();
  g.down(1, p(100, 100), 0);
  g.down(2, p(200, 100), 10);
  assert.equal(words(g.move([{ id: 2, at: p(212, 100) }])), ['zoom-start 100@150,100', 'zoom 112@156,100']);
});

two('a second finger during a drag ends the drag where the first finger is; a third finger is ignored', () => {
  const g = new GestureRecognizer();
  g.down(1, p(10, 10), 0);
  g.move([{ id: 1, at: p(60, 10) }]);
  assert.equal(words(g.down(2, p(100, 100), 50)), ['move 60,10']);
  assert.equal(g.move([{ id: 2, at: p(300, 300) }]), []);
  g.up(1, 100);
  g.up(2, 110);
  g.down(1, p(0, 0), 200);
  g.down(2, p(100, 0), 210);
  assert.equal(g.down(3, p(50, 50), 220), []);
  assert.equal(g.move([{ id: 3, at: p(90, 90) }]), []);
  assert.equal(g.up(3, 230), []);
});

two('a finger lifted before the gesture was a pinch or a scroll clicks nothing', () => {
  const g = new GestureRecognizer();
  g.down(1, p(10, 10), 0);
  g.down(2, p(60, 10), 20);
  assert.equal(g.up(1, 60), []);
  assert.equal(g.up(2, 70), []);
});

two.run();
