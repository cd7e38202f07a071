// Why a scheduled thread waits (src/screens/agent/conversation/queue-notice.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { queueNotice } from '../../src/screens/agent/conversation/queue-notice.ts';
import type { Thread } from '../../src/lib/types.ts';

const thread = (fields: Partial<Thread>): Thread => ({
  id: 1, agent_id: 1, name: 't', thread_running: false, error_message: '', schedule_sequence: null, updated_at: '2026-11-28T10:00:00Z', ...fields,
} as Thread);

test('a scheduled thread of a stopped agent says so and offers the start', () => {
  const mine = thread({ id: 5, schedule_sequence: 1 });
  assert.equal(queueNotice(mine, { target_run_state: 'stop', threads: [mine] }),
    { text: 'The agent is stopped: this thread runs when you start it.', canStart: true });
});

test('behind others in the schedule, it says how many; at the head of a started agent, nothing', () => {
  const running = thread({ id: 1, thread_running: true, schedule_sequence: 1 });
  const next = thread({ id: 2, schedule_sequence: 2 });
  const mine = thread({ id: 3, schedule_sequence: 3 });
  const agent = { target_run_state: 'run_all' as const, threads: [running, next, mine] };
  assert.equal(queueNotice(mine, agent), { text: 'Waiting behind 2 other threads in the schedule.', canStart: false });
  assert.equal(queueNotice(next, agent), { text: 'Waiting behind 1 other thread in the schedule.', canStart: false });
  assert.is(queueNotice(thread({ id: 4, schedule_sequence: 1 }), { target_run_state: 'run_all', threads: [] }), null);
});

test('held mail says why it waits and offers Run it, whatever the agent does', () => {
  const held = thread({ id: 9, held_reason: 'unverified' });
  const notice = queueNotice(held, { target_run_state: 'run_all', threads: [held] });
  assert.is(notice?.canRun, true);
  assert.match(notice?.text ?? '', /^Held: the sender could not be verified .* Run it if you trust it\.$/);
  assert.match(queueNotice(thread({ held_reason: 'rate' }), { target_run_state: 'stop', threads: [] })?.text ?? '', /^Held: mail already started/);
});

test('a thread that is done, failed, running or waiting for a person gets no notice', () => {
  const agent = { target_run_state: 'stop' as const, threads: [] };
  assert.is(queueNotice(thread({}), agent), null);
  assert.is(queueNotice(thread({ schedule_sequence: 1, error_message: 'boom' }), agent), null);
  assert.is(queueNotice(thread({ schedule_sequence: 1, thread_running: true }), agent), null);
  const help = { question: 'q', asked_at: '2026-11-28T10:00:00Z', reason: 'asked' as const };
  assert.is(queueNotice(thread({ schedule_sequence: 1, needs_help: help }), agent), null);
});

test.run();
