// Supervision's pure parts (issue 19): the runaway guard's rules, the hand-back's wording and masking, and the
// offline model's 'ask me for help with "…"'.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RunawayGuard, actionKey } from '../../server/supervision/guard.ts';
import { duration, formatHandback, looksSecret, secretTyping, type HandbackAction } from '../../server/supervision/handback-format.ts';
import { planInstruction } from '../../server/models/offline-planner.ts';
import { offlineReply } from '../../server/models/offline.ts';
import type { Message } from '../../server/models/types.ts';

const settings = { repeat_limit: 5, cost_cap_cents: 200, max_calls: 200 };
const click = { action: 'left_click', coordinate: [10, 10] };
const screen = Buffer.from('the same screen');

const guard = suite('runaway guard');

guard('the same action on the same spot with an unchanged screen trips on the Nth time, not before', () => {
  const g = new RunawayGuard(settings);
  for (let i = 1; i < 5; i++) assert.is(g.acted(click, screen), null, `action ${i}`);
  const trip = g.acted(click, screen)!;
  assert.is(trip.reason, 'repeat');
  assert.match(trip.question, /left_click at 10,10\) 5 times in a row and the screen did not change/);
  assert.is(g.beforeCall(), trip, 'once tripped it stays tripped');
});

guard('a changed screen, another spot or another action starts the count again', () => {
  const g = new RunawayGuard({ ...settings, repeat_limit: 3 });
  g.acted(click, screen);
  g.acted(click, screen);
  assert.is(g.acted(click, Buffer.from('another screen')), null);
  assert.is(g.acted(click, Buffer.from('another screen')), null);
  assert.is(g.acted({ action: 'left_click', coordinate: [11, 10] }, Buffer.from('another screen')), null);
  assert.is(g.acted({ action: 'type', text: 'a' }, Buffer.from('another screen')), null);
  assert.is(g.acted({ action: 'type', text: 'a' }, Buffer.from('another screen')), null);
  assert.ok(g.acted({ action: 'type', text: 'a' }, Buffer.from('another screen')));
});

guard('an action without a screenshot is never counted as the same; 0 turns the rule off', () => {
  const g = new RunawayGuard({ ...settings, repeat_limit: 2 });
  for (let i = 0; i < 5; i++) assert.is(g.acted({ action: 'cursor_position' }, null), null);
  const off = new RunawayGuard({ ...settings, repeat_limit: 0 });
  for (let i = 0; i < 50; i++) assert.is(off.acted(click, screen), null);
});

guard('the key of an action: action, place and what it typed; not the tool call id', () => {
  assert.is(actionKey({ action: 'left_click', coordinate: [1, 2] }), actionKey({ coordinate: [1, 2], action: 'left_click' }));
  assert.is.not(actionKey({ action: 'type', text: 'a' }), actionKey({ action: 'type', text: 'b' }));
});

guard('cost: above the cap since the last human message (counted from before the run), not at it', () => {
  const g = new RunawayGuard(settings, { calls: 3, cost: 1.5 });
  assert.is(g.beforeCall(), null);
  g.called(0.5);
  assert.is(g.beforeCall(), null, '$2.00 is not above $2');
  g.called(0.01);
  const trip = g.beforeCall()!;
  assert.is(trip.reason, 'cost');
  assert.match(trip.question, /cost \$2\.01 since your last message, above the \$2\.00 cap/);
});

guard('calls: more than M model calls since the last human message', () => {
  const g = new RunawayGuard({ ...settings, max_calls: 2 });
  assert.is(g.beforeCall(), null);
  g.called(0);
  assert.is(g.beforeCall(), null);
  g.called(0);
  const trip = g.beforeCall()!;
  assert.is(trip.reason, 'calls');
  assert.match(trip.question, /2 model calls since your last message, more than the 2/);
  assert.is(new RunawayGuard({ ...settings, max_calls: 0 }, { calls: 10_000, cost: 0 }).beforeCall(), null);
});

guard.run();

// ---

const words = suite('hand-back wording');

const a = (kind: HandbackAction['kind'], extra: Partial<HandbackAction> = {}): HandbackAction => ({ kind, at: 0, ...extra });

words('one user-side message: how long, each action as a line, the window under a click, and what follows', () => {
  const text = formatHandback({
    durationMs: 125_000,
    screen: { width: 1280, height: 800 },
    actions: [
      a('click', { x: 412, y: 230, button: 'left', count: 1, window: 'Terminal' }),
      a('type', { text: 'ls -la' }),
      a('key', { text: 'Enter' }),
      a('scroll', { x: 640, y: 400, direction: 'down', amount: 3 }),
      a('drop', { text: 'report.pdf' }),
    ],
  });
  assert.is(text, [
    'While you were paused, the person took control of the desktop for 2 min and did this (5 actions, in order; '
      + 'coordinates in pixels of the 1280x800 screen):',
    '1. clicked at 412,230 in the window "Terminal"',
    "2. typed 'ls -la'",
    '3. pressed Enter',
    '4. scrolled down 3 at 640,400',
    '5. dropped file report.pdf',
    'Then they handed the desktop back to you. A screenshot of it as they left it follows; go on from there.',
  ].join('\n'));
});

words('nothing done is said too', () => {
  const text = formatHandback({ durationMs: 4000, screen: null, actions: [] });
  assert.match(text, /^While you were paused, the person took control of the desktop for 4 s and did nothing on it/);
});

words('durations: seconds under a minute, else whole minutes', () => {
  assert.is(duration(0), '1 s');
  assert.is(duration(40_400), '40 s');
  assert.is(duration(60_000), '1 min');
  assert.is(duration(150_000), '3 min');
});

words('masking: the line after sudo/ssh/passwd, a password window, and text that looks like a secret', () => {
  const sudo = [a('type', { text: 'sudo apt update' }), a('key', { text: 'Enter' }), a('type', { text: 'hunter2' }), a('key', { text: 'Enter' }),
    a('type', { text: 'echo done' })];
  assert.equal([...secretTyping(sudo)].map((x) => x.text), ['hunter2']);
  const text = formatHandback({ durationMs: 1000, screen: null, actions: sudo });
  assert.not.match(text, /hunter2/);
  assert.match(text, /3\. typed a secret \(7 characters, masked here: likely a password\)/);
  assert.match(text, /5\. typed 'echo done'/);

  const window = [a('click', { x: 1, y: 1, window: 'Sign in – Google Accounts' }), a('type', { text: 'swordfish', window: 'Sign in – Google Accounts' })];
  assert.equal([...secretTyping(window)].map((x) => x.text), ['swordfish']);

  assert.ok(looksSecret('Tr0ub4dor&3'));
  assert.ok(looksSecret('correcT-horse9'));
  assert.not.ok(looksSecret('hello world'));
  assert.not.ok(looksSecret('/home/Agent1/x.txt'));
  assert.not.ok(looksSecret('boss@example.com'));
  assert.not.ok(looksSecret('Ab1!'));
  assert.not.ok(looksSecret('echo'));
});

words.run();

// ---

const offline = suite('offline model: asking for help');

const place = { width: 1280, height: 800, terminal: [0.25, 0.2] as [number, number] };

offline('ask me for help with "…" is the ask_for_help tool, and the plan goes on after a hand-back', () => {
  const plan = planInstruction('type "a" and ask me for help with "Which account, A or B?" and then type "b"', place);
  assert.equal(plan.calls.map((c) => [c.name, c.input]), [
    ['computer', { action: 'type', text: 'a' }],
    ['ask_for_help', { question: 'Which account, A or B?' }],
    ['computer', { action: 'type', text: 'b' }],
  ]);
  const messages: Message[] = [
    { role: 'user', content: 'ask me for help with "Which?" and then type "b"' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'ask_for_help', input: { question: 'Which?' } }] },
    { role: 'user', content: [
      { type: 'tool_result', tool_use_id: 'x', content: 'Asked.' },
      { type: 'text', text: "While you were paused, the person took control of the desktop for 3 s and did this (1 action):\n1. typed 'x'" },
      { type: 'text', text: 'The desktop as the person handed it back:' },
      { type: 'text', text: '[older screenshot removed]' },
    ] },
  ];
  const tools = [{ name: 'ask_for_help', description: '', input_schema: {} }];
  const reply = offlineReply({ system: '', messages, tools, computer: { width: 1280, height: 800 } });
  const use = reply.content.find((b) => b.type === 'tool_use') as { input: unknown };
  assert.equal(use.input, { action: 'type', text: 'b' });
});

offline.run();
