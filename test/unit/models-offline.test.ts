import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { offlineReply, progressOf } from '../../server/models/offline.ts';
import { parseClause, parseKeys, planInstruction, resolvePlace, splitClauses } from '../../server/models/offline-planner.ts';
import type { Message, ModelRequest } from '../../server/models/types.ts';

const place = { width: 1280, height: 800, terminal: [0.25, 0.2] as [number, number] };
const plan = (text: string) => planInstruction(text, place);
const calls = (text: string) => plan(text).calls.map((c) => [c.name, c.input]);

// ---

const grammar = suite('offline planner: grammar');

grammar('splits at "and", "then", commas and full stops only before a command verb', () => {
  assert.equal(splitClauses('open a terminal and type hello'), ['open a terminal', 'type hello']);
  assert.equal(splitClauses('type hello, press enter. Then take a screenshot'), ['type hello', 'press enter', 'take a screenshot']);
  assert.equal(splitClauses('type salt and pepper and press enter'), ['type salt and pepper', 'press enter']);
  assert.equal(splitClauses('type "open and close" then press enter'), ['type "open and close"', 'press enter']);
  assert.equal(splitClauses('type open sesame'), ['type open sesame']);
});

grammar('"ask a sub-agent to …" takes the rest of the instruction as its task', () => {
  assert.equal(splitClauses('take a screenshot and ask a sub-agent to open a terminal and type hi'),
    ['take a screenshot', 'ask a sub-agent to open a terminal and type hi']);
  assert.equal(calls('ask a subagent to type hi and press enter'), [['sub_agent', { task: 'type hi and press enter' }]]);
});

grammar('open a terminal clicks the terminal window; type, press, screenshot', () => {
  assert.equal(calls('Open a terminal and type hello'), [
    ['computer', { action: 'mouse_move', coordinate: [959, 160] }],
    ['computer', { action: 'left_click', coordinate: [320, 160] }],
    ['computer', { action: 'type', text: 'hello' }],
  ]);
  assert.equal(calls('type "ls -la" in the terminal, press Enter and take a screenshot'), [
    ['computer', { action: 'type', text: 'ls -la' }],
    ['computer', { action: 'key', text: 'Return' }],
    ['computer', { action: 'screenshot' }],
  ]);
});

grammar('keys: names, combinations and xdotool spellings', () => {
  assert.is(parseKeys('ctrl+c'), 'ctrl+c');
  assert.is(parseKeys('Ctrl-Alt-T'), 'ctrl+alt+t');
  assert.is(parseKeys('the escape key'), 'Escape');
  assert.is(parseKeys('page down'), 'Page_Down');
  assert.is(parseKeys('F5'), 'F5');
  assert.is(parseKeys('the big red button'), null);
});

grammar('clicks at coordinates or described places; unknown places are not guessed', () => {
  assert.equal(resolvePlace('640,400', place), [640, 400]);
  assert.equal(resolvePlace('(10, 20)', place), [10, 20]);
  assert.equal(resolvePlace('the center of the screen', place), [640, 400]);
  assert.equal(resolvePlace('the top left corner', place), [26, 16]);
  assert.equal(resolvePlace('bottom right corner', place), [1253, 783]);
  assert.equal(resolvePlace('the terminal', place), [320, 160]);
  assert.equal(resolvePlace('the OK button', place), null);
  assert.equal(calls('double-click at 5,6 and right click the middle'), [
    ['computer', { action: 'double_click', coordinate: [5, 6] }],
    ['computer', { action: 'right_click', coordinate: [640, 400] }],
  ]);
  assert.equal(plan('click the OK button').unknown, ['click the OK button']);
  assert.equal(calls('click at 99999,5'), [['computer', { action: 'left_click', coordinate: [1279, 5] }]]);
});

grammar('mouse moves, scrolls and waits', () => {
  assert.equal(calls('move the mouse to 100,200, scroll down 5 and wait 2 seconds'), [
    ['computer', { action: 'mouse_move', coordinate: [100, 200] }],
    ['computer', { action: 'scroll', coordinate: [640, 400], scroll_direction: 'down', scroll_amount: 5 }],
    ['computer', { action: 'wait', duration: 2 }],
  ]);
  assert.equal(parseClause('wait 500 ms', place)![0].input, { action: 'wait', duration: 0.5 });
});

grammar('notes, reports with a completion rate, and email drafts', () => {
  assert.equal(calls('write a note: call Bob on Monday'), [['notes', { action: 'append', text: 'call Bob on Monday' }]]);
  assert.equal(calls('remember that the key is blue'), [['notes', { action: 'append', text: 'the key is blue' }]]);
  assert.equal(calls('read my notes'), [['notes', { action: 'read' }]]);
  assert.equal(calls('write a report Backups: 3 of 4 servers checked (75% done)'), [['report', {
    title: 'Backups', description: '3 of 4 servers checked (75% done)',
    entries: [{ title: 'Backups', description: '3 of 4 servers checked (75% done)', completion_rate: 0.75 }],
  }]]);
  assert.is((plan('write a report "Audit" saying nothing found').calls[0].input as any).entries[0].completion_rate, null);
  assert.equal(calls('draft an email to ann@example.com about Lunch saying See you at noon'),
    [['email', { to: 'ann@example.com', subject: 'Lunch', text: 'See you at noon' }]]);
});

grammar('anything else is not understood', () => {
  assert.equal(plan('what is the meaning of life?'), { calls: [], unknown: ['what is the meaning of life?'] });
});

// ---

const replies = suite('offline model: replies');

const request = (messages: Message[], computer = true): ModelRequest => ({
  system: 'sys', messages, computer: computer ? { width: 1280, height: 800 } : null,
  tools: ['notes', 'report', 'email', 'sub_agent'].map((name) => ({ name, description: name, input_schema: {} })),
});

replies('one tool call per turn, in plan order, then a summary labelled as the offline model', () => {
  const messages: Message[] = [{ role: 'user', content: 'open a terminal and type hello' }];
  const move = offlineReply(request(messages));
  assert.is(move.stop_reason, 'tool_use');
  assert.equal(move.content.map((b) => b.type), ['thinking', 'text', 'tool_use']);
  const use0 = move.content[2] as any;
  assert.equal(use0.input, { action: 'mouse_move', coordinate: [959, 160] });
  messages.push({ role: 'assistant', content: move.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use0.id, content: 'Done.' }] });
  const first = offlineReply(request(messages));
  const use1 = first.content[2] as any;
  assert.equal(use1.input, { action: 'left_click', coordinate: [320, 160] });
  messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use1.id, content: 'Done.' }] });
  const second = offlineReply(request(messages));
  const use2 = second.content[2] as any;
  assert.equal(use2.input, { action: 'type', text: 'hello' });
  assert.is.not(use2.id, use1.id);
  messages.push({ role: 'assistant', content: second.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use2.id, content: 'Done.' }] });
  const last = offlineReply(request(messages));
  assert.is(last.stop_reason, 'end_turn');
  assert.match((last.content[0] as any).text, /^Done: moving the pointer off the terminal; opening the terminal .*; typing "hello"\./);
  assert.match((last.content[0] as any).text, /Offline model/);
  assert.ok(last.usage.input_tokens > 0 && last.usage.output_tokens > 0);
  assert.equal(offlineReply(request(messages)), last, 'deterministic');
});

replies('an interrupted call is tried again; a failed one ends with the reason', () => {
  const base: Message[] = [
    { role: 'user', content: 'take a screenshot' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'computer', input: { action: 'screenshot' } }] },
  ];
  const interrupted = [...base,
    { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'a', is_error: true, content: 'Interrupted: stopped' }] }];
  assert.equal(progressOf(interrupted).done, 0);
  assert.is(offlineReply(request(interrupted)).stop_reason, 'tool_use');
  const failed = [...base,
    { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'a', is_error: true, content: 'framebuffer lost' }] }];
  assert.match((offlineReply(request(failed)).content[0] as any).text, /failed \(framebuffer lost\)/);
});

replies('without a desktop it says so; without a plan it explains what it understands', () => {
  const noDesktop = offlineReply(request([{ role: 'user', content: 'open a terminal' }], false));
  assert.match((noDesktop.content[0] as any).text, /no desktop is available/);
  const chat = offlineReply(request([{ role: 'user', content: 'How are you?' }]));
  assert.is(chat.stop_reason, 'end_turn');
  assert.match((chat.content[0] as any).text, /I did not understand: "How are you\?"/);
  assert.match((chat.content[0] as any).text, /open a terminal and type hello/);
});

grammar.run();
replies.run();

const mailThenReply = suite('offline model: a held mail, then the person\'s reply');

mailThenReply('the reply does not run on into the e-mail the mail asked for, nor replace its instruction', () => {
  const reply = offlineReply(request([{ role: 'user', content: [
    { type: 'text', text: 'E-mail from you@example.com\nSubject: Hi\n\ndraft an email to you@example.com saying "hello"' },
    { type: 'text', text: 'go ahead please' },
  ] }], false));
  const use = reply.content.find((b) => b.type === 'tool_use') as unknown as { name: string; input: { text: string } };
  assert.is(use.name, 'email');
  assert.is(use.input.text, 'hello');
});

mailThenReply.run();


const credentials = suite('offline model: credentials (issue 45)');
const PLACE = { width: 1280, height: 800, terminal: [0.25, 0.2] as [number, number] };

credentials('"sign in to <url> with <name>" opens the URL, then types the credential with fill_credential and presses Enter', () => {
  const shop = { ...PLACE, credentials: { Shop: ['username', 'password', 'sign_in'] } };
  const plan = planInstruction('open a terminal, then sign in to http://127.0.0.1:8123/ with Shop', shop);
  assert.equal(plan.unknown, []);
  const calls = plan.calls.map((c) => [c.name, c.input.action ?? c.input.field, c.input.text ?? c.input.name ?? null]);
  assert.equal(calls.slice(2), [
    ['computer', 'left_click', null], ['computer', 'key', 'ctrl+l'], ['computer', 'type', 'http://127.0.0.1:8123/'], ['computer', 'key', 'Return'],
    ['computer', 'wait', null], ['fill_credential', 'sign_in', 'Shop'],
  ]);
  // The click lands on the browser's tab strip (the right half of the screen, at its top).
  const [x, y] = plan.calls[2].input.coordinate as [number, number];
  assert.ok(x > 640 && y < 30);
});

credentials('a credential with a TOTP secret: username, Tab, password, Tab, the code, Enter', () => {
  const shop = { ...PLACE, credentials: { 'My Shop': ['username', 'password', 'totp', 'sign_in'] } };
  const plan = planInstruction('sign in to https://shop.example/login with "My Shop"', shop);
  assert.equal(plan.calls.slice(5).map((c) => c.input.field ?? c.input.text), ['username', 'Tab', 'password', 'Tab', 'totp', 'Return']);
  assert.ok(plan.calls.slice(5).filter((c) => c.name === 'fill_credential').every((c) => c.input.name === 'My Shop'));
});

credentials('"go to <url>" and "type the password of <name>"; not a URL is not a rule', () => {
  const plan = planInstruction('go to http://127.0.0.1:8123/ and type the password of Shop', PLACE);
  assert.equal(plan.calls.map((c) => c.input.action ?? c.input.field), ['left_click', 'key', 'type', 'key', 'wait', 'password']);
  assert.equal(planInstruction('sign in to the shop with Shop', PLACE).unknown, ['sign in to the shop with Shop']);
  // A plain "type" is still typing.
  assert.equal(planInstruction("type 'go to sleep'", PLACE).calls[0].input, { action: 'type', text: 'go to sleep' });
});

credentials('the model reads the credentials and their fields from the fill_credential tool, never a value', () => {
  const request = {
    system: '', computer: { width: 1280, height: 800 },
    messages: [{ role: 'user', content: 'sign in to http://127.0.0.1:8123/ with Shop' }] as Message[],
    tools: [{
      name: 'fill_credential', input_schema: {},
      description: 'Type …\nYour credentials:\n- "Shop": fields username, password, totp, sign_in; may be typed into http://127.0.0.1:8123',
    }],
  } as unknown as ModelRequest;
  const fills: string[] = [];
  for (let i = 0; i < 12; i++) {
    const reply = offlineReply(request);
    const use = reply.content.find((b) => b.type === 'tool_use') as any;
    if (!use) break;
    if (use.name === 'fill_credential') fills.push(use.input.field);
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'ok' }] } as Message;
    request.messages.push({ role: 'assistant', content: reply.content }, result);
  }
  assert.equal(fills, ['username', 'password', 'totp']);
});

credentials.run();
