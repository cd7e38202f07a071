// /api/scheduler/{id}: admin only, the client's validation messages as 422 {detail}, 404 for ids
// nobody can reach, and next_run in every answer.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';

const api = suite('scheduler API');

const DAILY = { frequency: 'daily', schedule_time: '09:30', message: 'Morning report' };

async function setup() {
  // The server's own ticks would fire schedules these tests look at; they test the API only.
  await (await testServer()).parts.scheduler?.stop();
  const user = await newUser('sched');
  const agent = await newAgent(user.id);
  const admin = await adminToken();
  const post = (body: unknown, agentId = agent.id) => call(`/api/scheduler/${agentId}`, { token: admin, body });
  return { user, agent, admin, post };
}

api('an admin creates each kind; the answer carries the schedule and its next run (UTC)', async () => {
  const { agent, admin, post } = await setup();
  const before = Date.now();
  const cases = [
    [DAILY, { schedule_time: '09:30', weekdays: null, week_interval: null, day_of_month: null, interval: null }],
    [
      { frequency: 'weekly', schedule_time: '18:00', weekdays: [4, 0, 4], week_interval: 2, day_of_month: 9, message: 'Weekly' },
      { weekdays: [0, 4], week_interval: 2, day_of_month: null },
    ],
    [{ frequency: 'monthly', schedule_time: '00:05', day_of_month: 31, weekdays: [1], message: 'Monthly' }, { day_of_month: 31, weekdays: null }],
    [{ frequency: 'interval', interval: 90, schedule_time: '25:99', message: '  Every 90 s  ' }, { interval: 90, schedule_time: null, message: 'Every 90 s' }],
  ] as const;
  const ids: number[] = [];
  for (const [body, expected] of cases) {
    const res = await post(body);
    assert.is(res.status, 201, JSON.stringify(res.body));
    assert.is(res.body.agent_id, agent.id);
    assert.is(res.body.frequency, body.frequency);
    for (const [key, value] of Object.entries(expected)) assert.equal(res.body[key], value, `${body.frequency}.${key}`);
    const nextRun = Date.parse(res.body.next_run);
    assert.ok(nextRun > before, 'next run is ahead');
    assert.ok(res.body.next_run.endsWith('Z'));
    if (body.frequency !== 'interval') assert.is(res.body.next_run.slice(11, 16), body.schedule_time, 'fires at the UTC time');
    else assert.ok(nextRun - before <= 91_000 && nextRun - before >= 89_000, 'interval: now + 90 s');
    ids.push(res.body.id);
  }
  const list = await call(`/api/scheduler/${agent.id}`, { token: admin });
  assert.is(list.status, 200);
  assert.equal(list.body.map((s: any) => s.id), ids);
  assert.ok(list.body.every((s: any) => typeof s.next_run === 'string'));
});

api('invalid schedules are 422 with the form messages, and nothing is stored', async () => {
  const { agent, admin, post } = await setup();
  const cases: [Record<string, unknown>, string, string][] = [
    [{ frequency: 'interval', interval: 0, message: 'x' }, 'interval', 'Interval (seconds) must be > 0'],
    [{ frequency: 'interval', message: 'x' }, 'interval', 'Interval (seconds) must be > 0'],
    [{ frequency: 'interval', interval: -3, message: 'x' }, 'interval', 'Interval (seconds) must be > 0'],
    [{ frequency: 'daily', schedule_time: '9:30', message: 'x' }, 'schedule_time', 'Time must be in HH:MM format'],
    [{ frequency: 'monthly', day_of_month: 3, message: 'x' }, 'schedule_time', 'Time must be in HH:MM format'],
    [{ frequency: 'weekly', schedule_time: '10:00', weekdays: [], message: 'x' }, 'weekdays', 'Select at least one weekday'],
    [{ frequency: 'weekly', schedule_time: '10:00', message: 'x' }, 'weekdays', 'Select at least one weekday'],
    [{ frequency: 'monthly', schedule_time: '10:00', day_of_month: 32, message: 'x' }, 'day_of_month', 'Day of month must be between 1 and 31'],
    [{ frequency: 'monthly', schedule_time: '10:00', day_of_month: 0, message: 'x' }, 'day_of_month', 'Day of month must be between 1 and 31'],
    [{ ...DAILY, message: '   ' }, 'message', 'Message is required'],
    [{ ...DAILY, frequency: 'hourly' }, 'frequency', 'frequency must be one of daily, weekly, monthly, interval'],
    [{ frequency: 'weekly', schedule_time: '10:00', weekdays: ['mon'], message: 'x' }, 'weekdays', 'Weekdays are 0 (Monday) to 6 (Sunday)'],
  ];
  for (const [body, field, msg] of cases) {
    const res = await post(body);
    assert.is(res.status, 422, JSON.stringify(body));
    assert.equal(res.body.detail, [{ loc: ['body', field], msg, type: 'value_error' }]);
  }
  assert.is((await post(['not', 'an', 'object'])).status, 422);
  assert.equal((await call(`/api/scheduler/${agent.id}`, { token: admin })).body, []);
});

api('PUT replaces the rule and recomputes the next run; DELETE removes it; both 404 afterwards', async () => {
  const { admin, post } = await setup();
  const created = (await post(DAILY)).body;
  const put = (id: number, body: unknown) => call(`/api/scheduler/${id}`, { method: 'PUT', token: admin, body });
  const updated = await put(created.id, { frequency: 'monthly', schedule_time: '07:00', day_of_month: 15, message: 'Invoices' });
  assert.is(updated.status, 200);
  assert.is(updated.body.id, created.id);
  assert.is(updated.body.frequency, 'monthly');
  assert.is(updated.body.schedule_time, '07:00');
  assert.is(new Date(updated.body.next_run).getUTCDate(), 15);
  assert.is(updated.body.message, 'Invoices');
  const bad = await put(created.id, { frequency: 'weekly', schedule_time: '07:00', weekdays: [], message: 'x' });
  assert.is(bad.status, 422);
  assert.is(bad.body.detail[0].msg, 'Select at least one weekday');

  const del = await call(`/api/scheduler/${created.id}`, { method: 'DELETE', token: admin });
  assert.is(del.status, 204);
  assert.is((await call(`/api/scheduler/${created.id}`, { method: 'DELETE', token: admin })).status, 404);
  const gone = await put(created.id, DAILY);
  assert.is(gone.status, 404);
  assert.equal(gone.body, { detail: 'Schedule not found' });
});

api('unknown and malformed ids are 404 {detail}', async () => {
  const { admin, post } = await setup();
  for (const id of ['999999', 'abc', '0', '-1']) {
    assert.is((await call(`/api/scheduler/${id}`, { token: admin })).status, 404, `GET ${id}`);
    assert.is((await post(DAILY, id as unknown as number)).status, 404, `POST ${id}`);
    assert.is((await call(`/api/scheduler/${id}`, { method: 'PUT', token: admin, body: DAILY })).status, 404, `PUT ${id}`);
    assert.is((await call(`/api/scheduler/${id}`, { method: 'DELETE', token: admin })).status, 404, `DELETE ${id}`);
  }
  assert.equal((await call('/api/scheduler/999999', { token: admin })).body, { detail: 'Agent not found' });
});

api('non-admins get 403 {detail} on every method, also their own agent and also with X-Impersonate-User-Id', async () => {
  const { user, agent, post } = await setup();
  const created = (await post(DAILY)).body;
  const other = await newUser('sched-other');
  const variants: Record<string, string>[] = [{}, { 'X-Impersonate-User-Id': String(other.id) }, { 'X-Impersonate-User-Id': String(user.id) }];
  for (const headers of variants) {
    const tries = [
      call(`/api/scheduler/${agent.id}`, { token: user.token, headers }),
      call(`/api/scheduler/${agent.id}`, { token: user.token, headers, body: DAILY }),
      call(`/api/scheduler/${created.id}`, { method: 'PUT', token: user.token, headers, body: DAILY }),
      call(`/api/scheduler/${created.id}`, { method: 'DELETE', token: user.token, headers }),
    ];
    for (const res of await Promise.all(tries)) {
      assert.is(res.status, 403);
      assert.is(typeof res.body.detail, 'string');
    }
  }
  assert.is((await call(`/api/scheduler/${agent.id}`)).status, 401, 'no token');
  assert.is((await call(`/api/scheduler/${agent.id}`, { token: (await adminToken()) })).body.length, 1, 'nothing changed');
});

api("an admin acting as another user reaches only that user's agents (404 otherwise)", async () => {
  const { agent, admin, post } = await setup();
  const created = (await post(DAILY)).body;
  const stranger = await newUser('sched-stranger');
  const headers = { 'X-Impersonate-User-Id': String(stranger.id) };
  assert.is((await call(`/api/scheduler/${agent.id}`, { token: admin, headers })).status, 404);
  assert.is((await call(`/api/scheduler/${created.id}`, { method: 'DELETE', token: admin, headers })).status, 404);
  assert.is((await call(`/api/scheduler/${agent.id}`, { token: admin })).body.length, 1);
});

api("deleting the agent deletes its schedules", async () => {
  const { agent, admin, post } = await setup();
  const created = (await post(DAILY)).body;
  assert.is((await call(`/api/agents/${agent.id}`, { method: 'DELETE', token: admin })).status, 204);
  const { db } = (await testServer()).parts;
  assert.equal(await db.query('SELECT id FROM schedules WHERE id = $1', [created.id]), []);
});

api.run();
