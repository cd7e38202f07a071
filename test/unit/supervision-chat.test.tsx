// The chat's supervision items (issue 19): a thread waiting for a person shows the question with Take control,
// a take-over handed back shows collapsed as 'You took over for 2 min: 14 actions' and opens to its log, and the
// agents grid marks an agent waiting for a person.
import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import type { Step, Thread } from '../../src/lib/types.ts';
import { MessageList } from '../../src/screens/agent/conversation/message-list.tsx';
import { parseHandback } from '../../src/screens/agent/supervision/handback.ts';
import { storeControl, storedControl } from '../../src/screens/agent/supervision/control-flag.ts';

const thread = (fields: Partial<Thread> = {}): Thread => ({
  id: 1, agent_id: 7, name: 'T', description: '', thread_running: false, error_message: '', schedule_sequence: 1,
  approval_required: false, target_run_state: null, target_sequence: null, updated_at: new Date().toISOString(), ...fields,
});
const step = (sequence: number, fields: Partial<Step> = {}): Step => ({
  thread_id: 1, sequence, reasoning_text: '', assistant_text: '', user_text: '', user_files: [], tool_calls: [], ...fields,
});
const HANDBACK = [
  'While you were paused, the person took control of the desktop for 2 min and did this (2 actions, in order; coordinates in pixels):',
  '1. clicked at 10,20',
  "2. typed 'echo hi'",
  'Then they handed the desktop back to you. A screenshot of it as they left it follows; go on from there.',
].join('\n');

let root: Root | null = null;
async function render(node: React.ReactNode) {
  if (!root) {
    const el = document.createElement('div');
    document.body.append(el);
    root = createRoot(el);
  }
  await act(async () => root!.render(node));
}
const text = () => document.body.textContent ?? '';
const buttons = () => [...document.querySelectorAll('button')];

const chat = suite('supervision in the chat');

chat.before.each(() => {
  reset();
  root = null;
});

chat('a thread waiting for a person shows the question and Take control, which calls back', async () => {
  let taken = 0;
  const help = { question: 'Which account?', asked_at: new Date().toISOString(), reason: 'asked' as const };
  await render(<MessageList thread={thread({ needs_help: help })} steps={[step(1, { user_text: 'do it' })]} isLoading={false} thinking={false}
    onTakeControl={() => taken++} />);
  assert.match(text(), 'The agent asks for your help');
  assert.match(text(), 'Which account?');
  const take = buttons().find((b) => b.textContent === 'Take control')!;
  await act(async () => take.click());
  assert.is(taken, 1);
});

chat('a pause of the runaway guard says so; nothing shows while the thread runs or waits for nobody', async () => {
  const help = { question: 'I paused myself: …', asked_at: new Date().toISOString(), reason: 'repeat' as const };
  await render(<MessageList thread={thread({ needs_help: help })} steps={[]} isLoading={false} thinking={false} />);
  assert.match(text(), 'Paused by the runaway guard');
  await render(<MessageList thread={thread({ needs_help: help, thread_running: true })} steps={[]} isLoading={false} thinking={false} />);
  assert.not.match(text(), 'Paused by the runaway guard');
  await render(<MessageList thread={thread()} steps={[]} isLoading={false} thinking={false} />);
  assert.not.match(text(), 'Take control');
});

chat('a hand-back is collapsed to its title and opens to the action log', async () => {
  await render(<MessageList thread={thread()} steps={[step(1, { user_text: HANDBACK })]} isLoading={false} thinking={false} />);
  assert.match(text(), 'You took over for 2 min: 2 actions');
  assert.not.match(text(), "typed 'echo hi'");
  const toggle = buttons().find((b) => b.textContent === 'You took over for 2 min: 2 actions')!;
  assert.is(toggle.getAttribute('aria-expanded'), 'false');
  await act(async () => toggle.click());
  assert.equal([...document.querySelectorAll('.handback-list li')].map((li) => li.textContent), ['clicked at 10,20', "typed 'echo hi'"]);
});

chat('the title: one action, nothing done, and other text is no hand-back', () => {
  assert.is(parseHandback(HANDBACK.replace('2 actions', '1 action'))!.title, 'You took over for 2 min: 1 action');
  const nothing = parseHandback('While you were paused, the person took control of the desktop for 4 s and did nothing on it: no clicks.')!;
  assert.is(nothing.title, 'You took over for 4 s: 0 actions');
  assert.equal(nothing.lines, []);
  assert.is(parseHandback('While you were away I did this'), null);
});

chat('control mode is kept per agent in session storage across a reload', () => {
  assert.is(storedControl(7), false);
  storeControl(7, true);
  assert.is(storedControl(7), true);
  assert.is(storedControl(8), false);
  storeControl(7, false);
  assert.is(sessionStorage.getItem('control_mode_7'), null);
});

chat.run();
