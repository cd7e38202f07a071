// /api/reports: paging, sorting and date filters of the list, the detail, the review list and
// marking entries reviewed — each only for the owner; plus the report tool writing through the domain.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reportTool } from '../../server/runner/tools/report.ts';
import { ToolInputError, type ToolContext } from '../../server/runner/tools/types.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';

async function setup() {
  const { db, bus } = (await testServer()).parts;
  const user = await newUser('reports');
  const agent = await newAgent(user.id);
  const get = (path: string, token = user.token) => call(path, { token });
  /** A report made `daysAgo` days back with the given entries. */
  const report = async (title: string, daysAgo: number, entries: { rate: number | null; review?: boolean }[] = []) => {
    const [r] = await db.query<{ id: number }>(
      `INSERT INTO reports (owner_id, agent_id, title, description, created_at) VALUES ($1, $2, $3, $4, now() - make_interval(days => $5)) RETURNING id`,
      [user.id, agent.id, title, `About ${title}`, daysAgo]);
    for (const [i, e] of entries.entries()) {
      await db.query(
        `INSERT INTO report_entries (report_id, title, description, completion_rate, needs_review, created_at)
         VALUES ($1, $2, '', $3, $4, now() - make_interval(days => $5) + make_interval(secs => $6))`,
        [r.id, `${title} entry ${i + 1}`, e.rate, e.review ?? (e.rate !== null && e.rate < 1), daysAgo, i]);
    }
    return r.id;
  };
  const thread = (await call('/api/threads/', { token: user.token, body: { agent_id: agent.id } })).body;
  const toolCtx = (agentId = agent.id): ToolContext => ({
    db, bus, agent: { id: agentId, owner_id: user.id, name: 'a', email_prefix: null }, threadId: thread.id, signal: new AbortController().signal,
    mailDomain: 'localhost', computer: null,
  });
  return { db, user, agent, get, report, toolCtx };
}

const list = suite('reports: list');

list('pages newest first by default, oldest first on asc, with the total', async () => {
  const s = await setup();
  for (let i = 1; i <= 25; i++) await s.report(`R${String(i).padStart(2, '0')}`, 30 - i); // R25 is the newest
  const first = await s.get('/api/reports/?page=1&page_size=20');
  assert.is(first.status, 200);
  assert.is(first.body.total_count, 25);
  assert.is(first.body.reports.length, 20);
  assert.is(first.body.reports[0].title, 'R25');
  assert.equal(Object.keys(first.body.reports[0]).sort(), ['agent_id', 'created_at', 'description', 'id', 'title']);
  assert.is(first.body.reports[0].agent_id, s.agent.id);
  const second = await s.get('/api/reports/?page=2&page_size=20');
  assert.equal(second.body.reports.map((r: any) => r.title), ['R05', 'R04', 'R03', 'R02', 'R01']);
  const oldest = await s.get('/api/reports/?page=1&page_size=3&sort_order=asc');
  assert.equal(oldest.body.reports.map((r: any) => r.title), ['R01', 'R02', 'R03']);
  assert.is((await s.get('/api/reports/?page=9')).body.reports.length, 0);
});

list('filters by start_date and end_date (whole days, UTC)', async () => {
  const s = await setup();
  await s.report('old', 10);
  await s.report('recent', 1);
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  const recent = await s.get(`/api/reports/?start_date=${day(3)}`);
  assert.equal(recent.body.reports.map((r: any) => r.title), ['recent']);
  const old = await s.get(`/api/reports/?end_date=${day(5)}`);
  assert.equal(old.body.reports.map((r: any) => r.title), ['old']);
  assert.is(old.body.total_count, 1);
  const both = await s.get(`/api/reports/?start_date=${day(20)}&end_date=${day(0)}`);
  assert.is(both.body.total_count, 2);
});

list('bad query values are a 422 naming the parameter, and change nothing', async () => {
  const s = await setup();
  for (const [query, field] of [['page=0', 'page'], ['page_size=abc', 'page_size'], ['page_size=1000', 'page_size'], ['sort_order=up', 'sort_order'],
    ['start_date=2025-13-01', 'start_date'], ['end_date=yesterday', 'end_date'], ['start_date=2025-02-30', 'start_date']]) {
    const res = await s.get(`/api/reports/?${query}`);
    assert.is(res.status, 422, query);
    assert.equal(res.body.detail[0].loc, ['query', field], query);
    assert.type(res.body.detail[0].msg, 'string');
  }
  const res = await s.get('/api/reports/?start_date=2025-03-02&end_date=2025-03-01');
  assert.is(res.status, 422);
  assert.is((await s.get('/api/reports/entries_to_review?limit=0')).status, 422);
  assert.is((await s.get('/api/reports/')).status, 200);
});

list('another user sees none of them: not in the list, 404 on the detail', async () => {
  const s = await setup();
  const id = await s.report('private', 0, [{ rate: 0.5 }]);
  const other = await newUser('stranger');
  assert.is((await s.get('/api/reports/', other.token)).body.total_count, 0);
  const res = await s.get(`/api/reports/${id}`, other.token);
  assert.is(res.status, 404);
  assert.is(res.body.detail, 'Report not found');
  assert.equal((await s.get('/api/reports/entries_to_review', other.token)).body, []);
  assert.is((await s.get(`/api/reports/${id}`)).status, 200);
  assert.is((await s.get('/api/reports/abc')).status, 404);
  assert.is((await call('/api/reports/')).status, 401);
});

const review = suite('reports: detail and review');

review('the detail lists the entries oldest first with their completion', async () => {
  const s = await setup();
  const id = await s.report('Weekly', 0, [{ rate: 0.8 }, { rate: 1 }, { rate: null }]);
  const res = await s.get(`/api/reports/${id}`);
  assert.is(res.status, 200);
  assert.is(res.body.title, 'Weekly');
  assert.is(res.body.description, 'About Weekly');
  assert.is(res.body.agent_id, s.agent.id);
  assert.equal(res.body.entries.map((e: any) => [e.title, e.completion_rate]), [['Weekly entry 1', 0.8], ['Weekly entry 2', 1], ['Weekly entry 3', null]]);
});

review('entries below 1 or flagged wait for review until marked reviewed, newest first', async () => {
  const s = await setup();
  const a = await s.report('A', 2, [{ rate: 0.25 }, { rate: 1 }, { rate: null }]);
  const b = await s.report('B', 1, [{ rate: 1, review: true }]);
  const entries = (await s.get('/api/reports/entries_to_review')).body;
  assert.equal(entries.map((e: any) => [e.report_id, e.report_title, e.title, e.completion_rate]), [[b, 'B', 'B entry 1', 1], [a, 'A', 'A entry 1', 0.25]]);
  assert.equal(Object.keys(entries[0]).sort(), ['completion_rate', 'created_at', 'description', 'id', 'report_id', 'report_title', 'title']);
  assert.is((await s.get('/api/reports/entries_to_review?limit=1')).body.length, 1);

  const other = await newUser('intruder');
  assert.is((await call(`/api/reports/entries/${entries[0].id}/reviewed`, { token: other.token, method: 'POST' })).status, 404);
  const done = await call(`/api/reports/entries/${entries[0].id}/reviewed`, { token: s.user.token, method: 'POST' });
  assert.is(done.status, 200);
  assert.is(done.body.needs_review, false);
  assert.ok(done.body.reviewed_at);
  assert.equal((await s.get('/api/reports/entries_to_review')).body.map((e: any) => e.title), ['A entry 1']);
  // Marking again is harmless; an unknown entry is a 404.
  assert.is((await call(`/api/reports/entries/${entries[0].id}/reviewed`, { token: s.user.token, method: 'POST' })).status, 200);
  assert.is((await call('/api/reports/entries/99999999/reviewed', { token: s.user.token, method: 'POST' })).status, 404);
});

review('the report tool writes reports and entries; needs_review flags a complete entry', async () => {
  const s = await setup();
  const out = await reportTool.run({
    title: 'Deploy', description: 'Line one\nLine two',
    entries: [{ title: 'build', completion_rate: 1 }, { title: 'verify', completion_rate: 1, needs_review: true }, { title: 'notes', completion_rate: null }],
  }, s.toolCtx());
  const id = Number(/Report (\d+)/.exec(out.text)![1]);
  assert.match(out.text, '3 entries (1 flagged for review)');
  const detail = (await s.get(`/api/reports/${id}`)).body;
  assert.is(detail.description, 'Line one\nLine two');
  assert.equal(detail.entries.map((e: any) => [e.title, e.needs_review]), [['build', false], ['verify', true], ['notes', false]]);

  await reportTool.run({ report_id: id, entries: [{ title: 'follow-up', completion_rate: 0.5 }] }, s.toolCtx());
  assert.is((await s.get(`/api/reports/${id}`)).body.entries.length, 4);
  const otherAgent = await newAgent(s.user.id);
  for (const report_id of [id, 'abc', -1]) {
    try {
      await reportTool.run({ report_id, entries: [] }, s.toolCtx(otherAgent.id));
      assert.unreachable(`report_id ${report_id} was taken`);
    } catch (err) {
      assert.instance(err, ToolInputError);
    }
  }
});

list.run();
review.run();
