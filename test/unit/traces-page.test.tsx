import {
  ADMIN, byRole, cleanup, click, FakeApi, getRole, json, renderScreen, settle, text, type, USER, type Call,
} from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import type { CostByDay, Trace, TraceRow } from '../../src/lib/traces-api.ts';
import LlmTracesScreen, { LlmTracesPage } from '../../src/screens/llm-traces/llm-traces-screen.tsx';
import {
  DATE_ERROR, EMPTY_DRAFT, ID_ERROR, ID_ORDER_ERROR, localToUtcMinute, parseFilters,
} from '../../src/screens/llm-traces/trace-filters.ts';
import { dayLabel, daysBetween, fillDays, niceCeil } from '../../src/ui/day-chart.tsx';

// --- fakes

function row(id: number, extra: Partial<TraceRow> = {}): TraceRow {
  return {
    id, owner_id: 1, owner_email: 'admin@example.test', created_at: '2025-03-04T10:11:12Z', agent_id: 7, thread_id: 5,
    thread_name: 'Main: write a note', model: 'offline-planner', cache_read_tokens: 0, input_tokens: 1200, output_tokens: 34,
    estimated_cost: 0.5, latency: 1.5, ...extra,
  };
}

const COST: CostByDay[] = [
  { day: '2025-03-01', cost: 0.5, count: 2 },
  { day: '2025-03-04', cost: 1.25, count: 5 },
];

/** total traces with ids total..1, served 20 a page, id DESC. */
function traceApi(me = ADMIN, total = 45) {
  const state = { total, fail: false };
  const api = new FakeApi(me)
    .on('GET /api/llm_traces/', (call: Call) => {
      if (state.fail) return json({ detail: 'boom' }, 500);
      const q = new URLSearchParams(call.search);
      const page = Number(q.get('page'));
      const size = Number(q.get('page_size'));
      const ids = Array.from({ length: state.total }, (_, i) => state.total - i).slice((page - 1) * size, page * size);
      return { traces: ids.map((id) => row(id)), total_count: state.total, page, page_size: size };
    })
    .on('GET /api/llm_traces/cost_by_day', () => COST)
    .on('GET /api/llm_traces/owners', () => [{ id: 1, email: 'admin@example.test' }, { id: 2, email: 'user@example.test' }])
    .on('GET /api/llm_traces/thread_names', (call: Call) =>
      new URLSearchParams(call.search).get('owner_id') === '2' ? ['Main: user thread'] : ['Main: write a note', 'Sub: check'])
    .on('GET /api/models/status', () => ({ provider: 'offline', model: 'offline-planner', offline: true }));
  for (let id = 1; id <= total; id++) {
    api.on(`GET /api/llm_traces/${id}`, (): Trace => ({
      ...row(id),
      parameters: { max_tokens: 1024 },
      request: { messages: [] },
      response: { content: [{ type: 'text', text: `answer ${id}` }, { type: 'tool_use', name: 'notes', input: { text: 'hello' } }] },
    }));
  }
  const listCalls = () => api.calls.filter((c) => c.path === '/api/llm_traces/').map((c) => Object.fromEntries(new URLSearchParams(c.search)));
  return { api, state, listCalls };
}

const field = (label: string) => {
  const found = [...document.querySelectorAll('label.field')].find((l) => l.querySelector('span')?.textContent === label);
  if (!found) throw new Error(`no field ${label}`);
  return found.querySelector<HTMLInputElement & HTMLSelectElement>('input, select')!;
};
const fieldError = (label: string) => field(label).closest('label')!.querySelector('.field-error')?.textContent ?? null;

async function choose(select: HTMLSelectElement, value: string) {
  await act(async () => {
    Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value')!.set!.call(select, value);
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

const tableIds = () => [...document.querySelectorAll('.traces-table-row')].map((r) => Number(r.querySelector('td')!.textContent));
const pager = () => document.querySelector('.llm-traces-pager')!.textContent;
const button = (name: string) => getRole('button', name) as HTMLButtonElement;

const pageSuite = (name: string) => {
  const s = suite(name);
  s.after.each(cleanup);
  return s;
};

// ---

const filters = suite('trace filters: serialisation (spec §5)');

filters('leaves empty fields out', () => {
  assert.equal(parseFilters(EMPTY_DRAFT), { filters: {}, errors: {} });
});

filters('sends owner, thread name and integer ids', () => {
  const { filters: f, errors } = parseFilters({ ...EMPTY_DRAFT, ownerId: '2', threadName: 'Sub: check', idFrom: ' 10 ', idTo: '20' });
  assert.equal(errors, {});
  assert.equal(f, { owner_id: 2, thread_name: 'Sub: check', id_from: 10, id_to: 20 });
});

filters('rejects ids that are not whole numbers and does not send them', () => {
  for (const bad of ['abc', '1.5', '-3', '1e3', '12 3']) {
    const { filters: f, errors } = parseFilters({ ...EMPTY_DRAFT, idFrom: bad, idTo: bad });
    assert.equal(errors, { idFrom: ID_ERROR, idTo: ID_ERROR }, bad);
    assert.equal(f, {}, bad);
  }
});

filters('rejects ID To below ID From', () => {
  const { filters: f, errors } = parseFilters({ ...EMPTY_DRAFT, idFrom: '20', idTo: '10' });
  assert.equal(errors, { idTo: ID_ORDER_ERROR });
  assert.equal(f, { id_from: 20 });
});

filters("turns local datetime-local values into UTC 'YYYY-MM-DD HH:MM'", () => {
  const previous = process.env.TZ;
  try {
    process.env.TZ = 'UTC';
    assert.is(localToUtcMinute('2025-03-04T10:30'), '2025-03-04 10:30');
    process.env.TZ = 'Asia/Kolkata'; // UTC+5:30, no daylight saving
    assert.is(localToUtcMinute('2025-03-04T03:15'), '2025-03-03 21:45');
    assert.is(localToUtcMinute('2025-03-04T10:30:45'), '2025-03-04 05:00');
    process.env.TZ = 'America/New_York';
    assert.is(localToUtcMinute('2025-07-01T20:00'), '2025-07-02 00:00');
  } finally {
    if (previous === undefined) delete process.env.TZ;
    else process.env.TZ = previous;
  }
});

filters('rejects malformed and impossible date-times', () => {
  for (const bad of ['2025-02-30T10:00', '2025-13-01T10:00', '2025-03-04', 'yesterday', '2025-03-04 10:00']) {
    assert.is(localToUtcMinute(bad), null, bad);
  }
  const { filters: f, errors } = parseFilters({ ...EMPTY_DRAFT, createdFrom: 'nope', createdTo: '2025-03-04T10:00' });
  assert.equal(errors, { createdFrom: DATE_ERROR });
  assert.ok(/^2025-03-0[34] \d\d:\d\d$/.test(f.created_at_to!));
});

filters.run();

// ---

const chart = suite('cost chart: helpers');

chart('fills the days up to the last with zeros, a week at least', () => {
  const points = COST.map((p) => ({ day: p.day, value: p.cost, count: p.count }));
  assert.equal(fillDays(points).map((p) => `${p.day}:${p.value}`), [
    '2025-02-26:0', '2025-02-27:0', '2025-02-28:0', '2025-03-01:0.5', '2025-03-02:0', '2025-03-03:0', '2025-03-04:1.25',
  ]);
  const month = fillDays([{ day: '2025-01-01', value: 1, count: 1 }, { day: '2025-01-31', value: 2, count: 2 }]);
  assert.is(month.length, 31);
  assert.is(month[0].day, '2025-01-01');
  assert.equal(fillDays([]), []);
});

chart('daysBetween spans a whole period, days without data at zero', () => {
  const feb = daysBetween([{ day: '2024-02-10', value: 3 }], '2024-02-01', '2024-02-29');
  assert.is(feb.length, 29);
  assert.equal(feb[9], { day: '2024-02-10', value: 3 });
  assert.equal(feb[28], { day: '2024-02-29', value: 0, count: 0 });
});

chart('rounds axis maxima up to 1, 2 or 5 × 10^n', () => {
  assert.equal([0, 0.003, 0.07, 1.25, 3, 7, 10, 12].map(niceCeil), [0, 0.005, 0.1, 2, 5, 10, 10, 20]);
});

chart('labels days like "Mar 4"', () => {
  assert.is(dayLabel('2025-03-04'), 'Mar 4');
});

chart.run();

// ---

const page = pageSuite('LLM Traces page');

page('shows the nine columns and 20 rows, newest first, with Page 1 / 3', async () => {
  const { api, listCalls } = traceApi();
  await renderScreen(api, <LlmTracesPage isAdmin debounceMs={0} />);
  const headers = [...document.querySelectorAll('.traces-table th')].map((th) => th.textContent);
  assert.equal(headers, ['ID', 'Owner', 'Timestamp', 'Thread', 'Cache', 'In', 'Out', 'Cost', 'Latency']);
  assert.is(tableIds().length, 20);
  assert.is(tableIds()[0], 45);
  assert.is(pager(), 'PrevPage 1 / 3Next');
  assert.equal(listCalls(), [{ page: '1', page_size: '20' }]);
  const first = document.querySelector('.traces-table-row')!.textContent!;
  assert.match(first, 'admin@example.test');
  assert.match(first, 'Main');
  assert.match(first, '$0.50');
  assert.match(first, '1.50 s');
  assert.is(document.querySelector('h1')!.textContent, 'LLM Traces');
  assert.match(document.querySelector('.title-bar-action')!.textContent!, 'Offline model');
});

page('Prev is disabled on the first page and Next on the last', async () => {
  const { api, listCalls } = traceApi();
  await renderScreen(api, <LlmTracesPage isAdmin debounceMs={0} />);
  assert.ok(button('Prev').disabled);
  assert.not.ok(button('Next').disabled);
  await click(button('Next'));
  await settle();
  assert.is(pager(), 'PrevPage 2 / 3Next');
  assert.not.ok(button('Prev').disabled);
  await click(button('Next'));
  await settle();
  assert.is(pager(), 'PrevPage 3 / 3Next');
  assert.ok(button('Next').disabled);
  assert.equal(tableIds(), [5, 4, 3, 2, 1]);
  assert.equal(listCalls().map((q) => q.page), ['1', '2', '3']);
  await click(button('Prev'));
  await settle();
  assert.is(pager(), 'PrevPage 2 / 3Next');
});

page('a single page disables both buttons', async () => {
  const { api } = traceApi(ADMIN, 3);
  await renderScreen(api, <LlmTracesPage isAdmin debounceMs={0} />);
  assert.is(pager(), 'PrevPage 1 / 1Next');
  assert.ok(button('Prev').disabled);
  assert.ok(button('Next').disabled);
});

page('sends the filters, dates as UTC minutes, and starts again at page 1', async () => {
  const { api, listCalls } = traceApi();
  await renderScreen(api, <LlmTracesPage isAdmin debounceMs={0} />);
  await click(button('Next'));
  await settle();
  await choose(field('Owner'), '2');
  await settle();
  assert.equal(listCalls().at(-1), { owner_id: '2', page: '1', page_size: '20' });
  assert.ok(api.calls.some((c) => c.path === '/api/llm_traces/thread_names' && c.search === '?owner_id=2'));
  await choose(field('Thread Name'), 'Main: user thread');
  await type(field('ID From'), '10');
  await type(field('ID To'), '40');
  await type(field('Timestamp From'), '2025-03-04T10:30');
  await settle();
  const expected = localToUtcMinute('2025-03-04T10:30');
  assert.equal(listCalls().at(-1), {
    owner_id: '2', thread_name: 'Main: user thread', id_from: '10', id_to: '40', created_at_from: expected!, page: '1', page_size: '20',
  });
  const cost = api.calls.filter((c) => c.path === '/api/llm_traces/cost_by_day').at(-1)!;
  assert.equal(Object.fromEntries(new URLSearchParams(cost.search)), {
    owner_id: '2', thread_name: 'Main: user thread', id_from: '10', id_to: '40', created_at_from: expected!,
  });
  assert.is(pager(), 'PrevPage 1 / 3Next');
});

page('an invalid ID shows a field error and sends nothing', async () => {
  const { api, listCalls } = traceApi();
  await renderScreen(api, <LlmTracesPage isAdmin debounceMs={0} />);
  await type(field('ID From'), '12');
  await settle();
  const before = listCalls().length;
  await type(field('ID To'), '4.5');
  await settle();
  assert.is(fieldError('ID To'), ID_ERROR);
  assert.is(field('ID To').getAttribute('aria-invalid'), 'true');
  assert.is(listCalls().length, before);
  await type(field('ID To'), '30');
  await settle();
  assert.is(fieldError('ID To'), null);
  assert.equal(listCalls().at(-1), { id_from: '12', id_to: '30', page: '1', page_size: '20' });
});

page('says the timestamps are local time sent in UTC', async () => {
  const { api } = traceApi();
  await renderScreen(api, <LlmTracesPage isAdmin debounceMs={0} />);
  assert.is(field('Timestamp From').type, 'datetime-local');
  const hint = document.getElementById(field('Timestamp To').getAttribute('aria-describedby')!)!;
  assert.match(hint.textContent!, 'sent to the server in UTC');
});

page('admins get the Owner filter with All and the owners; others do not', async () => {
  const admin = traceApi();
  await renderScreen(admin.api, <LlmTracesScreen />);
  await settle();
  assert.equal([...field('Owner').options].map((o) => o.textContent), ['All', 'admin@example.test', 'user@example.test']);
  assert.equal([...field('Thread Name').options].map((o) => o.textContent), ['All', 'Main: write a note', 'Sub: check']);
  await cleanup();
  const user = traceApi(USER);
  await renderScreen(user.api, <LlmTracesScreen />);
  await settle();
  assert.throws(() => field('Owner'));
  assert.not.ok(user.api.calls.some((c) => c.path === '/api/llm_traces/owners'));
});

page('clicking a row opens the trace on the response tab', async () => {
  const { api } = traceApi();
  await renderScreen(api, <LlmTracesPage isAdmin debounceMs={0} />);
  await click(document.querySelectorAll('.traces-table-row')[1].querySelector('td:nth-child(3)')!);
  await settle();
  assert.is(getRole('dialog').querySelector('h2')!.textContent, 'Trace #44');
  assert.is(getRole('tab', 'response').getAttribute('aria-selected'), 'true');
  const panel = getRole('tabpanel');
  assert.match(panel.textContent!, 'answer 44');
  assert.match(panel.textContent!, 'Tool use: notes');
  await click(getRole('tab', 'parameters'));
  assert.match(getRole('tabpanel').textContent!, '"max_tokens": 1024');
  await click(byRole('button', 'Close').find((b) => b.textContent === 'Close')!);
  assert.equal(byRole('dialog'), []);
});

page("shows 'Failed to fetch traces' when the list fails, and reload tries again", async () => {
  const { api, state, listCalls } = traceApi();
  state.fail = true;
  await renderScreen(api, <LlmTracesPage isAdmin debounceMs={0} />);
  assert.is(getRole('alert').textContent, 'Failed to fetch traces');
  state.fail = false;
  await click(button('Reload traces'));
  await settle();
  assert.equal(byRole('alert'), []);
  assert.is(tableIds().length, 20);
  assert.is(listCalls().length, 2);
});

page('shows No traces found. for an empty result', async () => {
  const { api } = traceApi(ADMIN, 0);
  await renderScreen(api, <LlmTracesPage isAdmin debounceMs={0} />);
  assert.match(text(), 'No traces found.');
  assert.is(pager(), 'PrevPage 1 / 1Next');
});

page('draws the cost chart with an accessible title and description', async () => {
  const { api } = traceApi();
  await renderScreen(api, <LlmTracesPage isAdmin debounceMs={0} />);
  const svg = document.querySelector('svg.day-chart-svg')!;
  assert.is(svg.getAttribute('role'), 'img');
  const [titleId, descId] = svg.getAttribute('aria-labelledby')!.split(' ');
  assert.is(document.getElementById(titleId)!.textContent, 'Estimated cost per day');
  assert.match(document.getElementById(descId)!.textContent!, 'Feb 26 to Mar 4: $1.75 in total over 7 calls.');
  assert.match(text(), 'Cost per day$1.75 in total over 7 calls');
  assert.match(document.getElementById(descId)!.textContent!, '2025-03-04: $1.25, 5 calls.');
  assert.is(svg.querySelectorAll('rect.day-chart-bar').length, 7);
  assert.match(document.querySelector('.day-chart-days')!.textContent!, 'Feb 26');
  assert.match(document.querySelector('.day-chart-days')!.textContent!, 'Mar 4');
  assert.match(document.querySelector('.day-chart-axis')!.textContent!, '$2.00');
});

page.run();
