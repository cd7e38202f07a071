import { cleanup, FakeApi, renderScreen, settle, text, USER, waitFor } from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act, useState } from 'react';
import type { RunSummary } from '../../src/lib/replay-api.ts';
import type { Agent, Step, Thread } from '../../src/lib/types.ts';
import { ConversationPanel } from '../../src/screens/agent/conversation/conversation-panel.tsx';
import { runStarts } from '../../src/screens/agent/conversation/replay-links.ts';
import { TraceModal } from '../../src/ui/trace-modal.tsx';
import { TRACE } from './helpers/replay-fakes.ts';

const thread = (fields: Partial<Thread> = {}): Thread => ({
  id: 1, agent_id: 7, name: 'First thread', description: '', thread_running: false, error_message: '', schedule_sequence: null,
  approval_required: false, target_run_state: null, target_sequence: null, updated_at: new Date().toISOString(), ...fields,
});
const step = (sequence: number, run_id: number | null, text = `step ${sequence}`): Step => ({
  thread_id: 1, sequence, reasoning_text: '', assistant_text: text, user_text: '', user_files: [], tool_calls: [], run_id,
});
const agent = (threads: Thread[]): Agent => ({
  id: 7, owner_id: 2, name: 'Alice', screenshot_url: null, file_path: null, agent_running: false, target_run_state: 'stop',
  cua_client_connected: false, running_state: 'idle', number_scheduled_threads: 0, number_threads_requiring_approval: 0,
  email_prefix: null, email_accept_from_addresses: null, updated_at: new Date().toISOString(),
  system_prompt: '', notes: '', instructions: '', threads,
});
const run = (id: number, has_replay: boolean): RunSummary => ({
  id, thread_id: 1, agent_id: 7, started_at: '2025-03-04T10:00:00Z', ended_at: '2025-03-04T10:01:00Z', outcome: 'done', cost: 0, has_replay,
});

// Two runs with replays (3 and 4), one without (5); a user's message between runs has no run.
const STEPS = [step(1, null, 'do it'), step(2, 3), step(3, 3), step(4, null, 'again'), step(5, 4), step(6, 4), step(7, 5)];
const RUNS = [run(5, false), run(4, true), run(3, true)];

function conversationApi(steps: Step[] = STEPS) {
  return new FakeApi(USER)
    .on('GET /api/threads/1/steps', () => ({ steps, total_count: steps.length }))
    .on('GET /api/threads/1/runs', () => RUNS)
    .on('GET /api/messages/agent/7', () => ({ messages: [], total_count: 0 }))
    .on('POST /api/realtime/negotiate', () => ({ url: 'ws://hub/x', group: 'thread:1' }));
}

const links = () => [...document.querySelectorAll<HTMLAnchorElement>('.step-replay')];
const linkedSteps = () => links().map((a) => Number(a.closest<HTMLElement>('.step')!.dataset.sequence));
const runCalls = (api: FakeApi) => api.calls.filter((c) => c.path === '/api/threads/1/runs').length;

// ---

const starts = suite('replay: "Watch replay" on a run\'s first step');
starts.after.each(cleanup);

starts('a step starts a run when its run differs from the step before it', () => {
  assert.equal([...runStarts(STEPS)], [[2, 3], [5, 4], [7, 5]]);
  assert.equal([...runStarts([step(1, 9), step(2, 9)])], [[1, 9]], 'the first step loaded starts its run');
  assert.equal([...runStarts([step(1, null), step(2, null)])], []);
  assert.equal([...runStarts([step(1, 2), step(2, null), step(3, 2)])], [[1, 2], [3, 2]], 'a run resumed after a pause');
});

starts('links the first step of each run that has a replay, to /replay/{run}', async () => {
  const api = conversationApi();
  await renderScreen(api, <ConversationPanel agent={agent([thread()])} onAgentChange={() => {}} />);
  await waitFor(() => links().length === 2, 'two links');
  assert.equal(linkedSteps(), [2, 5]);
  assert.equal(links().map((a) => a.getAttribute('href')), ['/replay/3', '/replay/4']);
  assert.ok(links().every((a) => a.textContent!.trim() === 'Watch replay'));
  assert.is(runCalls(api), 1);
});

starts('a thread whose steps name no run asks for no runs', async () => {
  const api = conversationApi([step(1, null), step(2, null)]);
  await renderScreen(api, <ConversationPanel agent={agent([thread()])} onAgentChange={() => {}} />);
  await waitFor(() => text().includes('step 2'), 'the steps');
  await settle();
  assert.is(runCalls(api), 0);
  assert.is(links().length, 0);
});

starts('the runs are asked for again when the thread stops running (a recording is then complete)', async () => {
  const api = conversationApi();
  let setRunning!: (running: boolean) => void;
  function Host() {
    const [running, set] = useState(true);
    setRunning = set;
    return <ConversationPanel agent={agent([thread({ thread_running: running })])} onAgentChange={() => {}} />;
  }
  await renderScreen(api, <Host />);
  await waitFor(() => links().length === 2, 'the links');
  assert.is(runCalls(api), 1);
  await act(async () => setRunning(false));
  await waitFor(() => runCalls(api) === 2, 'asked again');
  await settle();
  assert.is(runCalls(api), 2, 'once');
});

starts('the trace modal links to the replay of the run that made the call', async () => {
  const api = new FakeApi(USER)
    .on('GET /api/llm_traces/11', () => TRACE)
    .on('GET /api/llm_traces/12', () => ({ ...TRACE, id: 12, run_id: null }));
  await renderScreen(api, <TraceModal traceId={11} onClose={() => {}} />);
  await waitFor(() => text().includes('offline-planner'), 'the trace');
  const link = document.querySelector<HTMLAnchorElement>('.trace-replay-link')!;
  assert.is(link.textContent, 'Watch replay');
  assert.is(link.getAttribute('href'), '/replay/17');
  await cleanup();
  await renderScreen(api, <TraceModal traceId={12} onClose={() => {}} />);
  await waitFor(() => text().includes('offline-planner'), 'the other trace');
  assert.is(document.querySelector('.trace-replay-link'), null);
});

starts.run();
