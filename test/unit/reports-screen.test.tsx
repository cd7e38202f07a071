import { byRole, cleanup, click, deferred, FakeApi, getRole, json, renderScreen, settle, text, USER, type Call } from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import type { ReportItem, ReviewEntry } from '../../src/lib/reports-api.ts';
import ReportsScreen from '../../src/screens/reports/reports-screen.tsx';
import ReportScreen from '../../src/screens/reports/report-screen.tsx';
import { cut, percent } from '../../src/screens/reports/format.ts';

// --- the display rules

const rules = suite('reports: display rules');

rules('descriptions are cut to their first characters, "-" when missing', () => {
  assert.is(cut('a'.repeat(130), 120), 'a'.repeat(120));
  assert.is(cut('short', 120), 'short');
  assert.is(cut('', 120), '-');
  assert.is(cut(null, 160), '-');
  assert.is(cut('😀'.repeat(5), 3), '😀😀😀', 'characters, not UTF-16 halves');
});

rules('completion is a rounded percent, "-" when null', () => {
  assert.equal([0, 0.004, 0.005, 0.834, 1].map(percent), ['0%', '0%', '1%', '83%', '100%']);
  assert.is(percent(null), '-');
  assert.is(percent(undefined), '-');
});

rules.run();

// --- the list page

const entry = (id: number, extra: Partial<ReviewEntry> = {}): ReviewEntry => ({
  id, report_id: 100 + id, report_title: `Report ${id}`, title: `Entry ${id}`, description: `About ${id}`,
  created_at: '2025-03-04T10:11:12Z', completion_rate: 0.5, ...extra,
});
const report = (id: number): ReportItem => ({ id, title: `R${id}`, description: 'd'.repeat(200), created_at: '2025-03-04T10:11:12Z', agent_id: 7 });

/** `entries` to review and `total` reports with ids total..1 (desc) served 20 a page. */
function reportsApi(entries: ReviewEntry[], total = 45) {
  const state = { entries, failList: false };
  const api = new FakeApi(USER)
    .on('GET /api/reports/entries_to_review', () => state.entries)
    .on('GET /api/reports/', (call: Call) => {
      if (state.failList) return json({ detail: 'database is down' }, 500);
      const q = new URLSearchParams(call.search);
      const page = Number(q.get('page'));
      const size = Number(q.get('page_size'));
      const ids = Array.from({ length: total }, (_, i) => total - i);
      if (q.get('sort_order') === 'asc') ids.reverse();
      return { reports: ids.slice((page - 1) * size, page * size).map(report), total_count: total };
    });
  for (const e of entries) {
    api.on(`POST /api/reports/entries/${e.id}/reviewed`, () => {
      state.entries = state.entries.filter((x) => x.id !== e.id);
      return { ...e, needs_review: false };
    });
  }
  return { api, state };
}

/** A section by its heading (aria-labelledby), as a screen reader names the region. */
function section(name: string): HTMLElement {
  const found = [...document.querySelectorAll('section')]
    .filter((el) => document.getElementById(el.getAttribute('aria-labelledby') ?? '')?.textContent === name);
  if (found.length !== 1) throw new Error(`expected one section named ${name}, found ${found.length}`);
  return found[0];
}
const title = () => document.querySelector('h1')!.textContent;
const rows = (name: string) => [...section(name).querySelectorAll('tbody tr')] as HTMLElement[];
const cells = (row: HTMLElement) => [...row.querySelectorAll('td')].map((td) => td.textContent);
const listCalls = (api: FakeApi) => api.calls.filter((c) => c.path === '/api/reports/').map((c) => Object.fromEntries(new URLSearchParams(c.search)));

const list = suite('reports: the Reports page');
list.after.each(cleanup);

list('shows the entries to review with their report, cut description and percent', async () => {
  const { api } = reportsApi([entry(1, { description: 'x'.repeat(130), completion_rate: 0.834 }), entry(2, { description: '', completion_rate: null })]);
  await renderScreen(api, <ReportsScreen />);
  assert.is(title(), 'Reports');
  const [first, second] = rows('Entries to review');
  assert.equal(cells(first).slice(1, 5), ['Report 1 #101', 'Entry 1', 'x'.repeat(120), '83%']);
  assert.equal(cells(second).slice(3, 5), ['-', '-']);
  assert.equal(api.calls.find((c) => c.path === '/api/reports/entries_to_review')!.search, '?limit=50');
  await click(first.querySelectorAll('td')[2]);
  assert.is(location.pathname, '/reports/101');
});

list('pages 50 review entries 20 at a time, and Mark reviewed clears them', async () => {
  const { api } = reportsApi(Array.from({ length: 45 }, (_, i) => entry(i + 1)));
  await renderScreen(api, <ReportsScreen />);
  const pager = () => section('Entries to review').querySelector('.pager')!.textContent;
  assert.is(rows('Entries to review').length, 20);
  assert.is(pager(), 'PrevPage 1 / 3Next');
  await click(byRole('button', 'Next')[0]);
  assert.is(pager(), 'PrevPage 2 / 3Next');
  assert.is(cells(rows('Entries to review')[0])[2], 'Entry 21');
  await click(getRole('button', 'Mark reviewed: "Entry 21"'));
  await settle();
  assert.ok(api.calls.some((c) => c.method === 'POST' && c.path === '/api/reports/entries/21/reviewed'));
  assert.is(cells(rows('Entries to review')[0])[2], 'Entry 22');
  assert.is(location.pathname, '/', 'the button does not open the report');
});

list('says No entries need review. when none wait', async () => {
  const { api } = reportsApi([]);
  await renderScreen(api, <ReportsScreen />);
  assert.match(section('Entries to review').textContent!, 'No entries need review.');
  assert.is(section('Entries to review').querySelector('table'), null);
});

list('lists all reports newest first, 20 a page, with Prev/Next disabled at the ends', async () => {
  const { api } = reportsApi([]);
  await renderScreen(api, <ReportsScreen />);
  const all = section('All reports');
  const pager = () => all.querySelector('.pager')!;
  const [prev, next] = [...pager().querySelectorAll('button')];
  assert.equal(listCalls(api)[0], { page: '1', page_size: '20', sort_order: 'desc' });
  assert.equal(cells(rows('All reports')[0]).slice(1), ['R45', 'd'.repeat(160), '#7']);
  assert.is(pager().textContent, 'PrevPage 1 / 3Next');
  assert.ok(prev.disabled);
  await click(next);
  await click(next);
  await settle();
  assert.is(pager().textContent, 'PrevPage 3 / 3Next');
  assert.ok(next.disabled);
  assert.is(rows('All reports').length, 5);

  const select = all.querySelector('select')!;
  assert.equal([...select.options].map((o) => [o.value, o.textContent]), [['desc', 'Newest'], ['asc', 'Oldest']]);
  await act(async () => {
    select.value = 'asc';
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await settle();
  assert.equal(listCalls(api).at(-1), { page: '1', page_size: '20', sort_order: 'asc' });
  assert.is(cells(rows('All reports')[0])[1], 'R1');
});

list('shows Loading… first and a failed list in red with its detail', async () => {
  const { api, state } = reportsApi([]);
  state.failList = true;
  const gate = deferred<void>();
  api.on('GET /api/reports/entries_to_review', async () => (await gate.promise, []));
  await renderScreen(api, <ReportsScreen />);
  assert.match(section('Entries to review').textContent!, 'Loading…');
  gate.resolve();
  await settle();
  assert.match(section('Entries to review').textContent!, 'No entries need review.');
  const alert = section('All reports').querySelector('[role="alert"]')!;
  assert.is(alert.textContent, 'database is down');
  assert.ok(alert.classList.contains('error-text'));
});

list.run();

// --- one report

const detail = suite('reports: Report detail');
detail.after.each(cleanup);

detail('shows the report with line breaks, its agent and its entries', async () => {
  const api = new FakeApi(USER).on('GET /api/reports/5', () => ({
    id: 5, title: 'Weekly', description: 'line one\nline two', created_at: '2025-03-04T10:11:12Z', agent_id: 7,
    entries: [{ id: 1, title: 'step', description: 'did it', created_at: '2025-03-04T10:11:13Z', completion_rate: 0.25 }],
  }));
  await renderScreen(api, <ReportScreen id={5} />);
  assert.is(title(), 'Report #5');
  assert.match(text(), 'Agent #7');
  assert.is(document.querySelector('.report-description')!.textContent, 'line one\nline two');
  const entryRow = document.querySelector('tbody tr') as HTMLElement;
  assert.equal(cells(entryRow).slice(1), ['step', 'did it', '25%']);
  await click(getRole('button', 'Back'));
  assert.is(location.pathname, '/reports');
});

detail('says No entries yet. and shows load errors in red', async () => {
  const api = new FakeApi(USER)
    .on('GET /api/reports/6', () => ({ id: 6, title: 'Empty', description: '', created_at: '2025-03-04T10:11:12Z', agent_id: 7, entries: [] }))
    .on('GET /api/reports/7', () => json({ detail: 'Report not found' }, 404))
    .on('GET /api/reports/8', () => json(null, 500));
  await renderScreen(api, <ReportScreen id={6} />);
  assert.match(text(), 'No entries yet.');
  await cleanup();
  await renderScreen(api, <ReportScreen id={7} />);
  assert.is(document.querySelector('[role="alert"]')!.textContent, 'Report not found');
  await cleanup();
  await renderScreen(api, <ReportScreen id={8} />);
  assert.match(document.querySelector('[role="alert"]')!.textContent!, /500|Failed to load report/);
});

detail.run();
