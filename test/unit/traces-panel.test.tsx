import {
  byRole, cleanup, click, deferred, FakeApi, getRole, json, renderScreen, settle, text, USER, waitFor, type Call,
} from './helpers/screen-harness.tsx';
import { fakeResourceEnvironment } from './helpers/fake-clock.ts';
import { BROWSER_ENVIRONMENT, configureEnvironment } from '../../src/lib/environment.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act, useState } from 'react';
import type { Trace } from '../../src/lib/traces-api.ts';
import { TracesPanel } from '../../src/screens/agent/traces/traces-panel.tsx';

// --- a fake trace store speaking the thread route's contract

const THREAD = 5;

function trace(id: number, extra: Partial<Trace> = {}): Trace {
  return {
    id, owner_id: 1, owner_email: 'admin@example.test', created_at: '2025-03-04T10:11:12Z', agent_id: 7, thread_id: THREAD,
    thread_name: 'Main: write a note', model: 'offline-planner', cache_read_tokens: 0, input_tokens: 1200, output_tokens: 34,
    estimated_cost: 0, latency: 0.25, parameters: { max_tokens: 1024, temperature: 0 },
    request: { messages: [{ role: 'user', content: `request ${id}` }] },
    response: {
      content: [
        { type: 'thinking', thinking: `pondering ${id}` },
        { type: 'text', text: `answer ${id}` },
        { type: 'tool_use', name: 'computer', input: { action: 'screenshot', n: id } },
      ],
      usage: { input_tokens: 1200, output_tokens: 34 },
    },
    ...extra,
  };
}

/** Applies after/before/limit/verbose like the server; `fail` makes the next answers 500s. */
function store(traces: Trace[]) {
  const state = { traces, fail: false };
  const api = new FakeApi(USER);
  api.on(`GET /api/llm_traces/thread/${THREAD}`, (call: Call) => {
    if (state.fail) return json({ detail: 'boom' }, 500);
    const q = new URLSearchParams(call.search);
    const limit = Number(q.get('limit') ?? 100);
    const verbose = q.get('verbose') === 'true';
    const all = [...state.traces].sort((a, b) => a.id - b.id);
    let picked: Trace[];
    let hasMore: boolean;
    if (q.has('after_trace_id')) {
      const newer = all.filter((t) => t.id > Number(q.get('after_trace_id')));
      picked = newer.slice(0, limit);
      hasMore = newer.length > limit;
    } else {
      const older = q.has('before_trace_id') ? all.filter((t) => t.id < Number(q.get('before_trace_id'))) : all;
      picked = older.slice(-limit);
      hasMore = older.length > limit;
    }
    const shaped = picked.map((t) => {
      if (verbose) return t;
      const { request: _request, response: _response, ...rest } = t;
      return rest as Trace;
    });
    return { traces: shaped, has_more: hasMore };
  });
  api.on('GET /api/models/status', () => ({ provider: 'offline', model: 'offline-planner', offline: true }));
  for (let id = 1; id <= 400; id++) {
    api.on(`GET /api/llm_traces/${id}`, () => state.traces.find((t) => t.id === id) ?? json({ detail: 'Trace not found' }, 404));
  }
  const threadCalls = () => api.calls.filter((c) => c.path === `/api/llm_traces/thread/${THREAD}`).map((c) => c.search);
  return { api, state, threadCalls };
}

const POLL = 20;
const rows = () => [...document.querySelectorAll<HTMLElement>('.trace-row')];
const rowIds = () => rows().map((r) => Number(r.dataset.traceId));
const openIds = () => rows().filter((r) => r.querySelector('[aria-expanded="true"]')).map((r) => Number(r.dataset.traceId));
const toggleOf = (id: number) => document.querySelector<HTMLElement>(`.trace-row[data-trace-id="${id}"] .trace-row-toggle`)!;
const checkbox = () => document.querySelector<HTMLInputElement>('.traces-single input')!;

// Poll timers and visibility come from an injected environment on a manual clock: a poll happens when the
// test moves the clock, and the test then waits for its request by condition, never for a fixed time.
let fake = fakeResourceEnvironment();
const setVisibility = (state: 'visible' | 'hidden') => fake.setVisible(state === 'visible');

function setupSuite(name: string) {
  const s = suite(name);
  s.before.each(() => {
    fake = fakeResourceEnvironment();
    configureEnvironment(fake.env);
  });
  s.after.each(async () => {
    await cleanup();
    configureEnvironment(BROWSER_ENVIRONMENT);
  });
  return s;
}

/** Moves the clock to the next poll and waits until its request has been answered and rendered. */
async function nextPoll(threadCalls: () => string[]): Promise<void> {
  const before = threadCalls().length;
  await fake.tick(POLL);
  await waitFor(() => threadCalls().length > before, 'a poll request');
  await settle();
}

// ---

const states = setupSuite('traces panel: states');

states('asks for a thread when none is selected, and requests nothing', async () => {
  const { api, threadCalls } = store([]);
  await renderScreen(api, <TracesPanel threadId={null} />);
  assert.match(text(), 'Select a thread to view traces.');
  assert.is(document.querySelector('.traces-panel h2')?.textContent, 'LLM Traces');
  assert.equal(threadCalls(), []);
});

states('shows Loading traces… until the first page arrives, which asks for limit 100 without bodies', async () => {
  const { api, threadCalls } = store([trace(1), trace(2)]);
  const gate = deferred<void>();
  const original = api.fetch;
  api.fetch = async (input, init) => {
    if (String(input).includes('/thread/')) await gate.promise;
    return original(input, init);
  };
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={60_000} />);
  assert.match(text(), 'Loading traces…');
  gate.resolve();
  await settle();
  assert.not.match(text(), 'Loading traces…');
  assert.equal(rowIds(), [1, 2]);
  assert.equal(threadCalls(), ['?limit=100&verbose=false']);
});

states('shows Failed to load traces. when the first load fails', async () => {
  const { api, state } = store([trace(1)]);
  state.fail = true;
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={POLL} />);
  assert.is(getRole('alert').textContent, 'Failed to load traces.');
  state.fail = false;
  await click(getRole('button', 'Retry'));
  await settle();
  assert.equal(rowIds(), [1]);
});

states('shows No traces found. for a thread without traces', async () => {
  const { api } = store([]);
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={60_000} />);
  assert.match(text(), 'No traces found.');
});

states("shows the Main/Sub marker, the values, and 'No data' where one is missing", async () => {
  const { api } = store([
    trace(1),
    trace(2, { thread_name: 'Sub: look around', model: null, input_tokens: null, estimated_cost: 0.0042, latency: null }),
  ]);
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={60_000} />);
  const [main, sub] = rows();
  assert.is(main.querySelector('.trace-marker')!.textContent, 'Main');
  assert.is(sub.querySelector('.trace-marker')!.textContent, 'Sub');
  assert.match(main.textContent!, '#1');
  assert.match(main.textContent!, 'offline-planner');
  assert.match(main.textContent!, 'In 1,200');
  assert.match(main.textContent!, 'Out 34');
  assert.match(main.textContent!, 'Cost $0.00');
  assert.match(main.textContent!, 'Latency 0.25 s');
  assert.match(sub.textContent!, 'In No data');
  assert.match(sub.textContent!, 'Latency No data');
  assert.match(sub.textContent!, 'Cost $0.0042');
  assert.is(sub.querySelector('.trace-row-model')!.textContent, 'No data');
  // The offline model is labelled as such.
  const badge = document.querySelector<HTMLElement>('.traces-panel-header .trace-offline')!;
  assert.is(badge.textContent, 'Offline');
  assert.is(badge.title, 'Offline model: offline-planner');
});

states.run();

// ---

const expanding = setupSuite('traces panel: expanding rows');

expanding('Single expand is on by default and keeps one row open at a time', async () => {
  const { api } = store([trace(1), trace(2), trace(3)]);
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={60_000} />);
  assert.ok(checkbox().checked);
  await click(toggleOf(1));
  await settle();
  assert.equal(openIds(), [1]);
  await click(toggleOf(2));
  await settle();
  assert.equal(openIds(), [2]);
  await click(toggleOf(2));
  assert.equal(openIds(), []);
});

expanding('with Single expand off several rows stay open; turning it back on keeps the latest', async () => {
  const { api } = store([trace(1), trace(2), trace(3)]);
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={60_000} />);
  await click(checkbox());
  assert.not.ok(checkbox().checked);
  await click(toggleOf(1));
  await click(toggleOf(3));
  await settle();
  assert.equal(openIds(), [1, 3]);
  await click(checkbox());
  assert.equal(openIds(), [3]);
  await click(toggleOf(1));
  assert.equal(openIds(), [1]);
});

expanding('an expanded bodiless row fetches its trace and renders thinking, text and tool_use', async () => {
  const { api } = store([trace(1)]);
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={60_000} />);
  await click(toggleOf(1));
  await settle();
  const body = document.querySelector('.trace-row-body')!;
  assert.ok(api.calls.some((c) => c.path === '/api/llm_traces/1'));
  assert.match(body.textContent!, 'Thinking');
  assert.match(body.textContent!, 'pondering 1');
  assert.match(body.textContent!, 'answer 1');
  assert.match(body.textContent!, 'Tool use: computer');
  assert.match(body.querySelector('pre')!.textContent!, '"action": "screenshot"');
});

expanding.run();

// ---

const polling = setupSuite('traces panel: polling');

polling('polls with after_trace_id = last id and verbose=true, and auto-expands a new trace', async () => {
  const { api, state, threadCalls } = store([trace(1), trace(2)]);
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={POLL} />);
  await fake.tick(POLL - 1);
  assert.is(threadCalls().length, 1, 'no poll before the interval');
  await nextPoll(threadCalls);
  await nextPoll(threadCalls);
  assert.equal(threadCalls().slice(1), ['?after_trace_id=2&limit=100&verbose=true', '?after_trace_id=2&limit=100&verbose=true']);
  state.traces.push(trace(3, { thread_name: 'Sub: check' }));
  await nextPoll(threadCalls);
  assert.equal(rowIds(), [1, 2, 3]);
  assert.equal(openIds(), [3]);
  // The polled trace came with its body: nothing more to fetch for its details.
  assert.match(document.querySelector('.trace-row-body')!.textContent!, 'answer 3');
  assert.not.ok(api.calls.some((c) => c.path === '/api/llm_traces/3'));
  await nextPoll(threadCalls);
  assert.is(threadCalls().at(-1), '?after_trace_id=3&limit=100&verbose=true');
});

polling('with Single expand on a newer arrival closes the previous one; with it off both stay open', async () => {
  const { api, state, threadCalls } = store([trace(1)]);
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={POLL} />);
  state.traces.push(trace(2));
  await nextPoll(threadCalls);
  state.traces.push(trace(3));
  await nextPoll(threadCalls);
  assert.equal(openIds(), [3]);
  await click(checkbox());
  state.traces.push(trace(4), trace(5));
  await nextPoll(threadCalls);
  assert.equal(openIds(), [3, 4, 5]);
});

polling('ignores poll errors silently and keeps polling', async () => {
  const { api, state, threadCalls } = store([trace(1)]);
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={POLL} />);
  state.fail = true;
  await nextPoll(threadCalls);
  await nextPoll(threadCalls);
  assert.equal(byRole('alert'), []);
  assert.equal(rowIds(), [1]);
  state.fail = false;
  state.traces.push(trace(2));
  await nextPoll(threadCalls);
  assert.equal(rowIds(), [1, 2]);
});

polling('stops polling while the tab is hidden and polls again once it is visible', async () => {
  const { api, state, threadCalls } = store([trace(1)]);
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={POLL} />);
  await nextPoll(threadCalls);
  await setVisibility('hidden');
  await fake.tick(POLL);
  await settle();
  const hiddenAt = threadCalls().length;
  state.traces.push(trace(2));
  await fake.tick(POLL * 5);
  await settle();
  assert.is(threadCalls().length, hiddenAt);
  assert.is(fake.clock.pending, 0, 'no poll is scheduled while hidden');
  assert.equal(rowIds(), [1]);
  await setVisibility('visible');
  await waitFor(() => rowIds().length === 2, 'the poll on becoming visible');
  assert.is(threadCalls().length, hiddenAt + 1);
  assert.equal(rowIds(), [1, 2]);
});

polling('a new thread starts from a fresh first load', async () => {
  const { api } = store([trace(1)]);
  api.on('GET /api/llm_traces/thread/6', () => ({ traces: [trace(9, { thread_id: 6 })], has_more: false }));
  function Switch() {
    const [threadId, setThreadId] = useState(THREAD);
    return (
      <>
        <button type="button" onClick={() => setThreadId(6)}>other thread</button>
        <TracesPanel threadId={threadId} pollInterval={60_000} />
      </>
    );
  }
  await renderScreen(api, <Switch />);
  await click(toggleOf(1));
  assert.equal(openIds(), [1]);
  await click(getRole('button', 'other thread'));
  await settle();
  assert.equal(rowIds(), [9]);
  assert.equal(openIds(), []);
});

polling.run();

// ---

const older = setupSuite('traces panel: Load more');

older('shows Load more at the top when older traces exist and asks for before_trace_id = first id', async () => {
  const { api, threadCalls } = store(Array.from({ length: 130 }, (_, i) => trace(i + 1)));
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={60_000} />);
  assert.is(rows().length, 100);
  assert.is(rowIds()[0], 31);
  await click(getRole('button', 'Load more'));
  await settle();
  assert.is(threadCalls().at(-1), '?before_trace_id=31&limit=100&verbose=false');
  assert.is(rows().length, 130);
  assert.is(rowIds()[0], 1);
  assert.equal(byRole('button', 'Load more'), [], 'no older traces left');
});

older('hides Load more when nothing older exists', async () => {
  const { api } = store([trace(1), trace(2)]);
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={60_000} />);
  assert.equal(byRole('button', 'Load more'), []);
});

older('hides Load more once the list is scrolled away from the top', async () => {
  const { api } = store(Array.from({ length: 130 }, (_, i) => trace(i + 1)));
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={60_000} />);
  const list = document.querySelector<HTMLElement>('.traces-list')!;
  Object.defineProperty(list, 'scrollTop', { configurable: true, get: () => 500, set: () => {} });
  await act(async () => void list.dispatchEvent(new Event('scroll')));
  assert.equal(byRole('button', 'Load more'), []);
  Object.defineProperty(list, 'scrollTop', { configurable: true, get: () => 0, set: () => {} });
  await act(async () => void list.dispatchEvent(new Event('scroll')));
  assert.is(byRole('button', 'Load more').length, 1);
});

older.run();

// ---

const modal = setupSuite('traces panel: the trace modal');

modal("a row's details button opens 'Trace #{id}' with parameters, request and response tabs and a Close button", async () => {
  const { api } = store([trace(1), trace(2)]);
  await renderScreen(api, <TracesPanel threadId={THREAD} pollInterval={60_000} />);
  await click(getRole('button', 'Details of trace #2'));
  await settle();
  const dialog = getRole('dialog');
  assert.is(dialog.querySelector('h2')!.textContent, 'Trace #2');
  const tabs = byRole('tab');
  assert.equal(tabs.map((t) => t.textContent), ['parameters', 'request', 'response']);
  assert.is(getRole('tab', 'parameters').getAttribute('aria-selected'), 'true');
  assert.match(getRole('tabpanel').textContent!, '"max_tokens": 1024');

  await click(getRole('tab', 'request'));
  assert.match(getRole('tabpanel').textContent!, '"content": "request 2"');

  await click(getRole('tab', 'response'));
  const panel = getRole('tabpanel');
  assert.match(panel.textContent!, 'pondering 2');
  assert.match(panel.textContent!, 'Tool use: computer');
  assert.match(panel.textContent!, 'Raw JSON');

  const close = byRole('button', 'Close').find((b) => b.textContent === 'Close')!;
  await click(close);
  assert.equal(byRole('dialog'), []);
});

modal.run();
