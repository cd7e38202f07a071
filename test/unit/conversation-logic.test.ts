import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { MessageEvent, MessagePage, Step, Thread, ChatMessage } from '../../src/lib/types.ts';
import { autoSelect, isRunning, statusIcon, threadIcon, threadStatus } from '../../src/screens/agent/conversation/thread-status.ts';
import { ageLabel } from '../../src/screens/agent/conversation/age-label.ts';
import { dropSequence, neighbour, sortScheduled } from '../../src/screens/agent/conversation/reorder.ts';
import { showThinking } from '../../src/screens/agent/conversation/shimmer.ts';
import { createDraft, DRAFT_NAME, isDraft, replaceDraft, withLocal } from '../../src/screens/agent/conversation/drafts.ts';
import { mergeSteps, upsertStep, visibleToolCalls } from '../../src/screens/agent/conversation/steps.ts';
import { applyMessageEvent, refreshesAgent } from '../../src/screens/agent/conversation/message-events.ts';
import { MAX_FILE_BYTES, oversizeMessage, splitBySize } from '../../src/screens/agent/conversation/file-limits.ts';

// --- helpers

const thread = (fields: Partial<Thread> = {}): Thread => ({
  id: 1, agent_id: 7, name: 't', description: '', thread_running: false, error_message: '', schedule_sequence: null,
  approval_required: false, target_run_state: null, target_sequence: null, updated_at: '2026-03-10T12:00:00Z', ...fields,
});

const step = (sequence: number, fields: Partial<Step> = {}): Step => ({
  thread_id: 1, sequence, reasoning_text: '', assistant_text: '', user_text: '', user_files: [], tool_calls: [], ...fields,
});

const message = (id: number, role: ChatMessage['role'] = 'user'): ChatMessage => ({
  id, agent_id: 7, thread_id: 1, role, user_data: { text: `m${id}` }, assistant_data: null, created_at: '2026-03-10T12:00:00Z',
});

// ---

const status = suite('conversation: thread display status');

status('failed wins over everything, then running, then scheduled, else idle', () => {
  assert.is(threadStatus(thread({ error_message: 'boom', thread_running: true, schedule_sequence: 1 })), 'failed');
  assert.is(threadStatus(thread({ thread_running: true, schedule_sequence: 1 })), 'running');
  assert.is(threadStatus(thread({ schedule_sequence: 3 })), 'scheduled');
  assert.is(threadStatus(thread({ schedule_sequence: 0 })), 'scheduled', 'a sequence of 0 is still not null');
  assert.is(threadStatus(thread()), 'idle');
  assert.is(threadStatus(thread({ held_reason: 'unverified' })), 'held', 'held mail is not done');
  assert.is(threadIcon(thread({ held_reason: 'rate' })), 'held');
});

status('a thread with an error is not running (the input stays)', () => {
  assert.not.ok(isRunning(thread({ thread_running: true, error_message: 'x' })));
  assert.ok(isRunning(thread({ thread_running: true })));
  assert.not.ok(isRunning(null));
});

status('icons: warning, spinner, hourglass or drag handle, check; none for a draft', () => {
  assert.is(statusIcon('failed'), 'warning');
  assert.is(statusIcon('running'), 'spinner');
  assert.is(statusIcon('scheduled'), 'hourglass');
  assert.is(statusIcon('scheduled', { draggable: true }), 'drag');
  assert.is(statusIcon('idle'), 'check');
  assert.is(threadIcon(createDraft(7)), null);
  assert.is(threadIcon(thread({ schedule_sequence: 1 }), { draggable: true }), 'drag');
});

status('auto-selection takes the running thread, else the first, else none', () => {
  const a = thread({ id: 1 });
  const b = thread({ id: 2, thread_running: true });
  const c = thread({ id: 3, thread_running: true, error_message: 'failed' });
  assert.is(autoSelect([a, c, b])?.id, 2);
  assert.is(autoSelect([a, c])?.id, 1);
  assert.is(autoSelect([]), null);
});

status('auto-selection takes a thread waiting for a person before the first (newest) one', () => {
  const newest = thread({ id: 1 });
  const waiting = thread({ id: 2, needs_help: { question: 'Which file?', asked_at: '2026-11-28T10:00:00Z', reason: 'asked' } });
  assert.is(autoSelect([newest, waiting])?.id, 2);
  assert.is(autoSelect([newest, waiting, thread({ id: 3, thread_running: true })])?.id, 3, 'a running thread still comes first');
});

status.run();

// ---

const ages = suite('conversation: age labels');
const NOW = new Date(2026, 5, 15, 10, 0, 0); // 15 June 2026, 10:00 local
const daysAgo = (days: number, hour = 12) => new Date(2026, 5, 15 - days, hour);

ages('Today for the same local day, including a time later today', () => {
  assert.is(ageLabel(new Date(2026, 5, 15, 0, 0, 1), NOW), 'Today');
  assert.is(ageLabel(new Date(2026, 5, 15, 23, 59), NOW), 'Today');
  assert.is(ageLabel(new Date(2026, 5, 16, 9), NOW), 'Today', 'a server clock slightly ahead');
});

ages('Yesterday is the previous calendar day, even when less than 24 hours ago', () => {
  assert.is(ageLabel(new Date(2026, 5, 14, 23, 59), NOW), 'Yesterday');
  assert.is(ageLabel(new Date(2026, 5, 14, 0, 0), NOW), 'Yesterday');
});

ages('{n}d ago from 2 to 6 days', () => {
  assert.is(ageLabel(daysAgo(2), NOW), '2d ago');
  assert.is(ageLabel(daysAgo(6, 0), NOW), '6d ago');
});

ages('{n}w ago from 7 days up to under 5 weeks', () => {
  assert.is(ageLabel(daysAgo(7), NOW), '1w ago');
  assert.is(ageLabel(daysAgo(13), NOW), '1w ago');
  assert.is(ageLabel(daysAgo(14), NOW), '2w ago');
  assert.is(ageLabel(daysAgo(34), NOW), '4w ago');
});

ages('{n}mo ago from 5 weeks up to under 12 months', () => {
  assert.is(ageLabel(daysAgo(35), NOW), '1mo ago');
  assert.is(ageLabel(new Date(2026, 3, 15), NOW), '2mo ago');
  assert.is(ageLabel(new Date(2025, 5, 16), NOW), '11mo ago', 'one day short of a year');
});

ages('{n}y ago from 12 months', () => {
  assert.is(ageLabel(new Date(2025, 5, 15), NOW), '1y ago');
  assert.is(ageLabel(new Date(2024, 5, 16), NOW), '1y ago');
  assert.is(ageLabel(new Date(2023, 0, 1), NOW), '3y ago');
});

ages('reads ISO strings', () => {
  assert.is(ageLabel(daysAgo(3).toISOString(), NOW), '3d ago');
});

ages.run();

// ---

const reorder = suite('conversation: reordering scheduled threads');
const s1 = thread({ id: 'a' as never, schedule_sequence: 1 });
const s2 = thread({ id: 'b' as never, schedule_sequence: 2 });
const s3 = thread({ id: 'c' as never, schedule_sequence: 3 });

reorder('the list is shown by descending sequence, unscheduled threads left out', () => {
  assert.equal(sortScheduled([s2, thread({ id: 9 }), s1, s3]).map((t) => t.schedule_sequence), [3, 2, 1]);
});

reorder('moving upward (to a higher sequence) asks for the target sequence plus one', () => {
  assert.is(dropSequence(s1, s2), 3);
  assert.is(dropSequence(s1, s3), 4);
});

reorder('moving downward asks for the target sequence', () => {
  assert.is(dropSequence(s3, s2), 2);
  assert.is(dropSequence(s3, s1), 1);
});

reorder('dropping onto itself or an unscheduled thread does nothing', () => {
  assert.is(dropSequence(s2, s2), null);
  assert.is(dropSequence(s2, thread({ id: 9 })), null);
});

reorder('the arrow keys pick the neighbour in the shown order', () => {
  const shown = sortScheduled([s1, s2, s3]);
  assert.is(neighbour(shown, 'b' as never, 'up')?.id, 'c');
  assert.is(neighbour(shown, 'b' as never, 'down')?.id, 'a');
  assert.is(neighbour(shown, 'c' as never, 'up'), null);
  assert.is(neighbour(shown, 'a' as never, 'down'), null);
});

reorder.run();

// ---

const shimmer = suite('conversation: Thinking shimmer');

shimmer('shows for sequence 1, a running agent and a last step with user text or files', () => {
  const next = thread({ schedule_sequence: 1 });
  assert.ok(showThinking(next, true, [step(1, { user_text: 'hi' })]));
  assert.ok(showThinking(next, true, [step(1, { assistant_text: 'a' }), step(2, { user_files: ['f.txt'] })]));
});

shimmer('hides when any condition is missing', () => {
  const next = thread({ schedule_sequence: 1 });
  assert.not.ok(showThinking(next, false, [step(1, { user_text: 'hi' })]), 'agent stopped');
  assert.not.ok(showThinking(thread({ schedule_sequence: 2 }), true, [step(1, { user_text: 'hi' })]), 'not next in the queue');
  assert.not.ok(showThinking(thread(), true, [step(1, { user_text: 'hi' })]), 'not scheduled');
  assert.not.ok(showThinking(next, true, [step(1, { user_text: 'hi' }), step(2, { assistant_text: 'answer' })]), 'answered');
  assert.not.ok(showThinking(next, true, []), 'no steps');
  assert.not.ok(showThinking(null, true, [step(1, { user_text: 'hi' })]), 'no thread');
});

shimmer.run();

// ---

const drafts = suite('conversation: drafts');

drafts('a draft has a tmp- id, the name New thread and is idle', () => {
  const draft = createDraft(7);
  assert.match(String(draft.id), /^tmp-.+/);
  assert.is(draft.name, DRAFT_NAME);
  assert.is(DRAFT_NAME, 'New thread');
  assert.is(draft.agent_id, 7);
  assert.is(threadStatus(draft), 'idle');
  assert.ok(isDraft(draft));
  assert.not.ok(isDraft(thread({ id: 12 })));
  assert.is.not(createDraft(7).id, draft.id);
});

drafts('the real thread takes the draft place in the list', () => {
  const draft = createDraft(7);
  const other = createDraft(7);
  const real = thread({ id: 42, name: 'hello' });
  assert.equal(replaceDraft([other, draft], String(draft.id), real).map((t) => t.id), [other.id, 42]);
  assert.equal(replaceDraft([draft], String(draft.id), real).map((t) => t.id), [42]);
  assert.equal(replaceDraft([other], 'tmp-gone', real).map((t) => t.id), [42, other.id], 'a missing draft puts it in front');
});

drafts('local threads show in front until the server lists them', () => {
  const draft = createDraft(7);
  const created = thread({ id: 42 });
  const server = [thread({ id: 5 })];
  assert.equal(withLocal([draft, created], server).map((t) => t.id), [draft.id, 42, 5]);
  const fresh = thread({ id: 42, name: 'from server' });
  const merged = withLocal([draft, created], [fresh, ...server]);
  assert.equal(merged.map((t) => t.id), [draft.id, 42, 5]);
  assert.is(merged[1].name, 'from server', "the server's copy wins");
});

drafts.run();

// ---

const steps = suite('conversation: steps by sequence');

steps('inserts in sequence order wherever the step falls', () => {
  let list: Step[] = [];
  for (const n of [2, 5, 1, 3]) list = upsertStep(list, step(n));
  assert.equal(list.map((s) => s.sequence), [1, 2, 3, 5]);
});

steps('replaces a step with the same sequence', () => {
  const list = [step(1), step(2, { assistant_text: 'old' })];
  const next = upsertStep(list, step(2, { assistant_text: 'new' }));
  assert.equal(next.map((s) => s.assistant_text), ['', 'new']);
  assert.is(list[1].assistant_text, 'old', 'the input is not changed');
});

steps('merges a loaded page with steps that arrived meanwhile', () => {
  const merged = mergeSteps([step(4, { user_text: 'live' })], [step(1), step(2), step(3)]);
  assert.equal(merged.map((s) => s.sequence), [1, 2, 3, 4]);
});

steps('pending tool calls are hidden', () => {
  const s = step(1, { tool_calls: [{ name: 'a', status: 'pending' }, { name: 'b', status: 'running' }, { name: 'c', status: 'done' }] });
  assert.equal(visibleToolCalls(s).map((c) => c.name), ['b', 'c']);
  assert.equal(visibleToolCalls(step(2, { tool_calls: undefined as never })), []);
});

steps.run();

// ---

const events = suite('conversation: message events');
const page = (ids: number[], total = ids.length): MessagePage => ({ messages: ids.map((id) => message(id)), total_count: total });
const event = (type: MessageEvent['type'], id: number, role: ChatMessage['role'] = 'user'): MessageEvent =>
  ({ type, agent_id: 7, message_id: id, message: { ...message(id, role), user_data: { text: `${type} ${id}` } } });

events('created adds the message at the front and counts it', () => {
  const next = applyMessageEvent(page([2, 1], 10), event('created', 3));
  assert.equal(next.messages.map((m) => m.id), [3, 2, 1]);
  assert.is(next.total_count, 11);
});

events('created for a message already on the page replaces it without counting twice', () => {
  const next = applyMessageEvent(page([2, 1], 2), event('created', 2));
  assert.equal(next.messages.map((m) => m.id), [2, 1]);
  assert.is(next.total_count, 2);
});

events('updated replaces the message with the same id', () => {
  const next = applyMessageEvent(page([2, 1]), event('updated', 1));
  assert.equal(next.messages.map((m) => m.user_data?.text), ['m2', 'updated 1']);
  assert.is(next.total_count, 2);
});

events('deleted removes it and counts down, never below 0', () => {
  const next = applyMessageEvent(page([2, 1], 2), event('deleted', 2));
  assert.equal(next.messages.map((m) => m.id), [1]);
  assert.is(next.total_count, 1);
  assert.is(applyMessageEvent(page([], 0), event('deleted', 9)).total_count, 0);
});

events('only a created assistant message refreshes the agent', () => {
  assert.ok(refreshesAgent(event('created', 1, 'assistant')));
  assert.not.ok(refreshesAgent(event('created', 1, 'user')));
  assert.not.ok(refreshesAgent(event('updated', 1, 'assistant')));
});

events.run();

// ---

const limits = suite('conversation: file size limit');
const file = (name: string, size: number) => ({ name, size });

limits('100 MB is allowed, one byte more is not', () => {
  assert.is(MAX_FILE_BYTES, 100 * 1024 * 1024);
  const { accepted, rejected } = splitBySize([file('ok', MAX_FILE_BYTES), file('big', MAX_FILE_BYTES + 1), file('small', 3)]);
  assert.equal(accepted.map((f) => f.name), ['ok', 'small']);
  assert.equal(rejected.map((f) => f.name), ['big']);
});

limits('messages for one and for several refused files', () => {
  assert.is(oversizeMessage([]), null);
  assert.is(oversizeMessage([file('video.mp4', 1)]), 'video.mp4 exceeds the 100MB limit and cannot be uploaded.');
  assert.is(oversizeMessage([file('a', 1), file('b', 1), file('c', 1)]), '3 files exceed the 100MB limit...');
});

limits.run();
