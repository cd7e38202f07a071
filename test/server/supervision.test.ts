// Supervision (issue 19) on a real server and database with fake desktops: the agent asks for help and its run
// pauses (needs_help, run state stop, the owner's e-mail), an answer in the chat or a hand-back clears it and the
// run goes on, and the runaway guard pauses runs that repeat themselves on an unchanged screen, cost too much or
// make too many calls since the person last wrote.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendUserInputAndSchedule } from '../../server/threads/threads.ts';
import { createOffline } from '../../server/models/offline.ts';
import { Handbacks } from '../../server/supervision/handbacks.ts';
import type { Runner } from '../../server/runner/runner.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';
import { scripted, swapRunner, text, toolUse, waitFor, type FakeDesktop } from './runner-helpers.ts';
import { TOPICS } from '../../server/realtime/topics.ts';
import { LocalStore } from '../../server/storage/index.ts';

let runner: Runner & { desktops: any };
const filesDir = mkdtempSync(join(tmpdir(), 'aw-supervision-'));
const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };

async function setup(provider = createOffline(), guard?: Record<string, number>) {
  if (runner) await runner.stop();
  const notified: { threadId: number; question: string }[] = [];
  const server = await testServer();
  runner = await swapRunner({
    provider, filesDir, onNeedsHelp: async (threadId, help) => void notified.push({ threadId, question: help.question }),
    held: () => server.parts.handbacks?.held() ?? [], // as start.ts wires it
  });
  const user = await newUser('supervise');
  const agent = await newAgent(user.id);
  const post = (path: string, body: unknown = {}) => call(path, { token: user.token, body });
  const get = (path: string) => call(path, { token: user.token });
  if (guard) assert.is((await call(`/api/agents/${agent.id}/supervision`, { token: user.token, method: 'PUT', body: guard })).status, 200);
  const { db, bus } = (await testServer()).parts;
  const send = async (message: string) => (await post(`/api/threads/${agent.id}/create-new-thread`, { user_text: message })).body;
  const thread = async (id: number) => (await get(`/api/threads/${id}`)).body;
  const steps = async (id: number) => (await get(`/api/threads/${id}/steps?limit=500&offset=0`)).body.steps;
  const agentRow = async () => (await get(`/api/agents/${agent.id}`)).body;
  const play = () => post(`/api/agents/${agent.id}/run-state`, { state: 'run_all' });
  const waiting = (id: number) => waitFor(async () => {
    const t = await thread(id);
    return t.needs_help && !t.thread_running ? t : null;
  }, 8000, `thread ${id} to wait for a person`);
  const finished = (id: number) => waitFor(async () => {
    const t = await thread(id);
    return !t.thread_running && t.schedule_sequence === null && !t.needs_help ? t : null;
  }, 8000, `thread ${id} to finish`);
  const desktop = () => runner.desktops.all.get(agent.id) as FakeDesktop;
  const traces = async (id: number) => (await get(`/api/llm_traces/thread/${id}?limit=100&verbose=true`)).body.traces;
  /** The thread's audit events: [action, actor type, actor id]. */
  const audited = async (id: number) => (await db.query<{ action: string; actor_type: string; actor_id: number | null }>(
    `SELECT action, actor_type, actor_id FROM audit_events WHERE target_type = 'thread' AND target_id = $1 ORDER BY id`, [String(id)],
  )).map((e) => [e.action, e.actor_type, e.actor_id]);
  return { user, agent, post, get, db, bus, send, thread, steps, agentRow, play, waiting, finished, desktop, traces, notified, audited };
}

const help = suite('supervision: asking for help');

help.after(async () => {
  await runner?.stop();
});

help('ask_for_help pauses the run: needs_help on the thread and in the realtime events, the agent stops, the owner is told', async () => {
  const s = await setup();
  const t = await s.send('type "before" and ask me for help with "Which account should I use?" and then type " after"');
  const events: any[] = [];
  const off = s.bus.subscribe(TOPICS.threadChanged(t.id), (e) => events.push(e));
  await s.play();
  const waiting = await s.waiting(t.id);
  off();
  assert.is(waiting.needs_help.question, 'Which account should I use?');
  assert.is(waiting.needs_help.reason, 'asked');
  assert.ok(Date.parse(waiting.needs_help.asked_at) > Date.now() - 60_000);
  assert.is(waiting.schedule_sequence, 1, 'the thread stays at the head of the queue');
  assert.is(waiting.error_message, '');
  assert.equal(events.map((e) => e.needs_help?.question), ['Which account should I use?']);
  assert.is(s.desktop().typed, 'before', 'nothing after the question ran');
  assert.equal(await s.audited(t.id), [['run.help_request', 'agent', s.agent.id]]);

  const agent = await s.agentRow();
  assert.is(agent.target_run_state, 'stop');
  assert.is(agent.number_threads_needing_help, 1);
  const listed = (await s.get('/api/agents/')).body.find((a: any) => a.id === s.agent.id);
  assert.is(listed.number_threads_needing_help, 1);
  const calls = (await s.steps(t.id)).flatMap((st: any) => st.tool_calls);
  assert.equal(calls.at(-1).name, 'ask_for_help');
  assert.is(calls.at(-1).status, 'done');
  const feed = (await s.get(`/api/messages/agent/${s.agent.id}?page=1&page_size=5`)).body.messages;
  assert.is(feed[0].assistant_data.text, 'Waiting for you: Which account should I use?');
  assert.equal(s.notified, [{ threadId: t.id, question: 'Which account should I use?' }]);
});

help('an answer in the chat clears needs_help and the agent runs again', async () => {
  const s = await setup();
  const t = await s.send('ask me for help with "Shall I go on?"');
  await s.play();
  await s.waiting(t.id);
  const answer = await s.post(`/api/threads/${t.id}/set-user-input-and-schedule`, { user_text: 'type "yes, go on"' });
  assert.is(answer.status, 200);
  assert.is((await s.thread(t.id)).needs_help, null);
  await s.finished(t.id);
  assert.is(s.desktop().typed, 'yes, go on');
  assert.is((await s.agentRow()).number_threads_needing_help, 0);
});

help('the owner\'s e-mail goes through the outbound sender, queued on the thread without approval', async () => {
  const { helpNotifier } = await import('../../server/supervision/help-notice.ts');
  const s = await setup();
  const t = await s.send('take a screenshot');
  await s.play();
  await s.finished(t.id);
  const notify = helpNotifier({ db: s.db, bus: s.bus, mailDomain: 'test.local', publicUrl: 'https://agents.example', port: () => 1, sending: () => true });
  await notify(t.id, { question: 'Which account?', asked_at: new Date().toISOString(), reason: 'asked', resume: 'run_all' });
  const [mail] = await s.db.query(`SELECT * FROM comm_messages WHERE thread_id = $1`, [t.id]);
  assert.is(mail.outbound_state === 'queued' || mail.outbound_state === 'success', true);
  assert.is(mail.to_address, s.user.email);
  assert.match(mail.text, /Which account\?/);
  assert.match(mail.text, new RegExp(`https://agents.example/agent/${s.agent.id}\n`));
  assert.match(mail.text, new RegExp(`take control of its desktop and hand it back: https://agents.example/agent/${s.agent.id}\\?control=1`));
});

help('handing back writes the action log with a screenshot, clears needs_help, and the agent goes on where it was', async () => {
  const s = await setup();
  const t = await s.send('ask me for help with "Please sign in for me" and then open a terminal and type "signed in" and press enter');
  await s.play();
  await s.waiting(t.id);
  const titled = () => Object.assign(s.desktop(), { windowAt: async (x: number) => (x < 640 ? 'Terminal' : null) });
  const handbacks = new Handbacks({ db: s.db, bus: s.bus, log: quiet, blobs: new LocalStore(filesDir), desktop: titled });
  handbacks.control(s.agent.id, { userId: s.user.id, state: 'taken' });
  const at = Date.now();
  const key = (keysym: number) => {
    handbacks.input(s.agent.id, { kind: 'key', keysym, down: true, at, userId: s.user.id });
    handbacks.input(s.agent.id, { kind: 'key', keysym, down: false, at, userId: s.user.id });
  };
  handbacks.input(s.agent.id, { kind: 'mouse', x: 300, y: 200, mask: 1, at, userId: s.user.id });
  handbacks.input(s.agent.id, { kind: 'mouse', x: 300, y: 200, mask: 0, at, userId: s.user.id });
  for (const ch of 'ls') key(ch.charCodeAt(0));
  key(0xff0d);
  // Someone else's input never counts.
  handbacks.input(s.agent.id, { kind: 'key', keysym: 0x78, down: true, at, userId: s.user.id + 1000 });
  handbacks.control(s.agent.id, { userId: s.user.id, state: 'released' });
  await handbacks.idle();
  assert.is((await s.thread(t.id)).needs_help, null);
  await s.finished(t.id);
  assert.is(s.desktop().typed, 'signed in', 'the plan went on after the hand-back');
  // to its end, also once the hand-back's screenshot is an older one (left out of the request)
  assert.equal(s.desktop().actions.at(-1), { action: 'key', text: 'Return' });

  const steps = await s.steps(t.id);
  const handback = steps.find((st: any) => st.user_text.startsWith('While you were paused, the person'));
  assert.ok(handback, 'the hand-back is a step of the thread');
  assert.match(handback.user_text, /took control of the desktop for \d+ s and did this \(3 actions/);
  assert.match(handback.user_text, /1\. clicked at 300,200 in the window "Terminal"\n2\. typed 'ls'\n3\. pressed Enter/);
  // The next model call was told, with the screenshot.
  const traces = await s.traces(t.id);
  const after = traces.find((tr: any) => JSON.stringify(tr.request ?? '').includes("typed 'ls'"));
  assert.ok(after, 'a trace request carries the action log');
  assert.match(JSON.stringify(after.request), /The desktop as the person handed it back/);
});

/** A take-over of the agent's desktop by its owner (a click, 'ls'), whose click's window is known only once `answer` is called. */
async function slowTakeover(s: Awaited<ReturnType<typeof setup>>) {
  let answer = () => {};
  const looked = new Promise<string>((resolve) => (answer = () => resolve('Terminal')));
  const desktop = () => Object.assign(s.desktop(), { windowAt: () => looked });
  const handbacks = new Handbacks({ db: s.db, bus: s.bus, log: quiet, blobs: new LocalStore(filesDir), desktop });
  const { parts } = await testServer();
  const serverOwn = parts.handbacks;
  parts.handbacks = handbacks; // the routes and the runner ask the server's
  const at = Date.now();
  const input = (e: { kind: 'mouse'; x: number; y: number; mask: number } | { kind: 'key'; keysym: number; down: boolean }) =>
    handbacks.input(s.agent.id, { ...e, at, userId: s.user.id });
  handbacks.control(s.agent.id, { userId: s.user.id, state: 'taken' });
  input({ kind: 'mouse', x: 300, y: 200, mask: 1 });
  input({ kind: 'mouse', x: 300, y: 200, mask: 0 });
  for (const ch of 'ls') {
    input({ kind: 'key', keysym: ch.charCodeAt(0), down: true });
    input({ kind: 'key', keysym: ch.charCodeAt(0), down: false });
  }
  const handBack = () => handbacks.control(s.agent.id, { userId: s.user.id, state: 'released' });
  return { handbacks, handBack, answer, restore: () => void (parts.handbacks = serverOwn) };
}

/** The agent's first run, on a provider that records what each model call got and lets the test act at a call. */
async function afterFirstRun() {
  const calls: (() => void)[] = [];
  const provider = scripted([(() => {
    calls.shift()?.();
    return [text('Done.')];
  })]);
  const s = await setup(provider);
  const t = await s.send('hello');
  await s.play();
  await s.finished(t.id);
  return { s, t, provider, before: provider.requests.length, atNextCall: (fn: () => void) => calls.push(fn) };
}

help('a message sent in the same tick as the hand-back comes after it, and the first model call sees what the person did', async () => {
  const { s, t, provider, before, atNextCall } = await afterFirstRun();
  const takeover = await slowTakeover(s);
  // The click's window becomes known once the message waits for the hand-back, or else at the run's model call
  // (the run did not wait: that call's request has no hand-back, and the test fails below).
  const waited = takeover.handbacks.written.bind(takeover.handbacks);
  takeover.handbacks.written = (agentId) => (takeover.answer(), waited(agentId));
  atNextCall(takeover.answer);
  try {
    takeover.handBack();
    const sent = await s.post(`/api/threads/${t.id}/set-user-input-and-schedule`, { user_text: 'take a screenshot' });
    assert.is(sent.status, 200);
    await s.finished(t.id);
    const first = JSON.stringify(provider.requests[before].messages);
    const handback = first.indexOf('While you were paused, the person');
    assert.ok(handback >= 0, 'the first model call of the run has the hand-back');
    assert.match(first, /clicked at 300,200 in the window \\"Terminal\\"/);
    assert.ok(first.indexOf('take a screenshot') > handback, 'the message after the hand-back, as they were sent');
  } finally {
    takeover.restore();
  }
});

help('a run queued another way (mail, a schedule) while a hand-back is being written waits for it', async () => {
  const { s, t, provider, before, atNextCall } = await afterFirstRun();
  const takeover = await slowTakeover(s);
  atNextCall(takeover.answer); // a run that did not wait: the hand-back is written after its call, which lacks it
  try {
    takeover.handBack();
    assert.equal(takeover.handbacks.held(), [s.agent.id], 'held from the moment control ends');
    await appendUserInputAndSchedule(s.db, s.bus, t.id, s.agent.id, 'take a screenshot', []);
    await runner.idle(); // the runner woke for it and claimed nothing (or ran it, without the hand-back)
    assert.is(provider.requests.length, before, 'no model call while the hand-back is being written');
    takeover.answer();
    await takeover.handbacks.idle();
    assert.equal(takeover.handbacks.held(), []);
    await s.finished(t.id);
    assert.match(JSON.stringify(provider.requests[before].messages), /While you were paused, the person/);
  } finally {
    takeover.restore();
  }
});

help('a lease that runs out writes the log but answers nothing', async () => {
  const s = await setup();
  const t = await s.send('ask me for help with "Anything?"');
  await s.play();
  await s.waiting(t.id);
  const handbacks = new Handbacks({ db: s.db, bus: s.bus, log: quiet, blobs: new LocalStore(filesDir), desktop: () => s.desktop() });
  handbacks.control(s.agent.id, { userId: s.user.id, state: 'taken' });
  handbacks.control(s.agent.id, { userId: s.user.id, state: 'taken' }); // a reload: the same take-over
  handbacks.control(s.agent.id, { userId: s.user.id, state: 'expired' });
  await handbacks.idle();
  const thread = await s.thread(t.id);
  assert.ok(thread.needs_help, 'still waiting');
  assert.is((await s.agentRow()).target_run_state, 'stop');
  const last = (await s.steps(t.id)).at(-1);
  assert.match(last.user_text, /did nothing on it/);
});

help('a take-over that recorded a demonstration hands back nothing: the demonstration\'s summary tells the agent', async () => {
  const s = await setup();
  const t = await s.send('take a screenshot');
  await s.play();
  await s.finished(t.id);
  const before = (await s.steps(t.id)).length;
  const handbacks = new Handbacks({ db: s.db, bus: s.bus, log: quiet, blobs: new LocalStore(filesDir), desktop: () => s.desktop(), recording: () => true });
  handbacks.control(s.agent.id, { userId: s.user.id, state: 'taken' });
  handbacks.input(s.agent.id, { kind: 'key', keysym: 0x61, down: true, at: Date.now(), userId: s.user.id });
  handbacks.control(s.agent.id, { userId: s.user.id, state: 'released' });
  await handbacks.idle();
  assert.is((await s.steps(t.id)).length, before);
});

help.run();

// ---

const guard = suite('supervision: the runaway guard');

guard.after(async () => {
  await runner?.stop();
});

guard('the same click on an unchanged screen N times in a row pauses the run with the reason as the question', async () => {
  const s = await setup(createOffline(), { repeat_limit: 3 });
  const t = await s.send('click at 10,10 and click at 10,10 and click at 10,10 and click at 10,10 and type "never"');
  await s.play();
  const waiting = await s.waiting(t.id);
  assert.is(waiting.needs_help.reason, 'repeat');
  assert.equal(await s.audited(t.id), [['run.guard_pause', 'system', null]]);
  assert.match(waiting.needs_help.question, /same thing \(left_click at 10,10\) 3 times in a row and the screen did not change/);
  assert.is(s.desktop().actions.length, 3);
  assert.is(s.desktop().typed, '');
  assert.is((await s.agentRow()).target_run_state, 'stop');
  const last = (await s.steps(t.id)).at(-1);
  assert.match(last.assistant_text, /^Paused by the runaway guard/);
  const traces = await s.traces(t.id);
  const note = traces.find((tr: any) => tr.parameters?.paused);
  assert.ok(note, 'the traces say why it paused');
  assert.is(note.response.paused, 'repeat');
});

guard('the cost since the last human message above the cap pauses the run (a provider that reports usage)', async () => {
  const shot = [toolUse('t', 'computer', { action: 'screenshot' })];
  const provider = scripted([shot], 'priced', 0.4);
  const s = await setup(provider, { cost_cap_cents: 100, repeat_limit: 0 });
  const t = await s.send('look at the screen for ever');
  await s.play();
  const waiting = await s.waiting(t.id);
  assert.is(waiting.needs_help.reason, 'cost');
  assert.match(waiting.needs_help.question, /cost \$1\.20 since your last message, above the \$1\.00 cap/);
  assert.is(provider.requests.length, 3);
  // An answer is a human message: the count starts again.
  await s.post(`/api/threads/${t.id}/set-user-input-and-schedule`, { user_text: 'go on' });
  await s.waiting(t.id);
  assert.is(provider.requests.length, 6);
});

guard('more model calls than the limit since the last human message pauses the run', async () => {
  const provider = scripted([[toolUse('t', 'computer', { action: 'screenshot' })]], 'calls', 0);
  const s = await setup(provider, { max_calls: 4, repeat_limit: 0 });
  const t = await s.send('keep looking');
  await s.play();
  const waiting = await s.waiting(t.id);
  assert.is(waiting.needs_help.reason, 'calls');
  assert.is(provider.requests.length, 4);
});

guard('the settings: defaults, validation, 0 turns a rule off', async () => {
  const s = await setup();
  const url = `/api/agents/${s.agent.id}/supervision`;
  const got = (await s.get(url)).body;
  assert.equal(got, { repeat_limit: 5, cost_cap_cents: 200, max_calls: 200, defaults: { repeat_limit: 5, cost_cap_cents: 200, max_calls: 200 } });
  const bad = await call(url, { token: s.user.token, method: 'PUT', body: { repeat_limit: -1 } });
  assert.is(bad.status, 422);
  const off = await call(url, { token: s.user.token, method: 'PUT', body: { max_calls: 0 } });
  assert.is(off.body.max_calls, 0);
  assert.is(off.body.repeat_limit, 5);
});

guard.run();
