// The runner enforces billing before every model call: test credits without a payment method, the
// monthly limit with one. A run may pass the line by the one call that crossed it, never by more.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Runner } from '../../server/runner/runner.ts';
import { GUARD_DEFAULTS, GUARD_LIMITS, setGuardSettings } from '../../server/supervision/supervision.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';
import { scripted, swapRunner, text, toolUse, waitFor } from './runner-helpers.ts';

const CARD = '{"brand":"visa","last4":"4242","exp_month":12,"exp_year":2040}';
const ADD_CARD = `INSERT INTO billing_customers (user_id, payment_method) VALUES ($1, '${CARD}')`;

let runner: Runner | null = null;

/** A user with an agent whose model calls cost `costUsd` each and never end on their own (a note per turn). */
async function setup(costUsd: number) {
  const provider = scripted([[toolUse('n', 'notes', { action: 'append', text: 'step' })]], 'priced', costUsd);
  await runner?.stop();
  runner = await swapRunner({ provider });
  const user = await newUser('spender');
  const agent = await newAgent(user.id);
  const { db } = (await testServer()).parts;
  // The runaway guard's cost cap ($2 since the last human message) would pause these runs first.
  await setGuardSettings(db, agent.id, { ...GUARD_DEFAULTS, cost_cap_cents: GUARD_LIMITS.cost_cap_cents });
  const post = (path: string, body: unknown = {}) => call(path, { token: user.token, body });
  const run = async () => {
    const t = (await post(`/api/threads/${agent.id}/create-new-thread`, { user_text: 'keep going' })).body;
    await post(`/api/agents/${agent.id}/run-state`, { state: 'run_all' });
    return waitFor(async () => {
      const row = (await call(`/api/threads/${t.id}`, { token: user.token })).body;
      return !row.thread_running && row.error_message ? row : null;
    }, 10_000, 'the run to fail');
  };
  const spentUsd = async () =>
    (await db.one<{ s: number }>('SELECT COALESCE(sum(estimated_cost), 0)::float8 AS s FROM llm_traces WHERE owner_id = $1', [user.id]))!.s;
  return { provider, user, agent, db, post, run, spentUsd };
}

const billing = suite('runner: billing enforcement');

billing.after(async () => {
  await runner?.stop();
});

billing('without a payment method, the run stops once the test credits are used up', async () => {
  const s = await setup(2); // $2 a call against $5 of credits: calls 1-3 start under the line
  const failed = await s.run();
  assert.is(s.provider.requests.length, 3);
  assert.is(await s.spentUsd(), 6);
  assert.is(failed.error_message, 'Test credits used up: $6.00 spent of $5.00 in test credits. Add a payment method in Billing settings to continue.');
  const feed = (await call(`/api/messages/agent/${s.agent.id}/latest?limit=3`, { token: s.user.token })).body;
  assert.ok(feed.some((m: any) => m.role === 'error' && m.assistant_data.text === failed.error_message), 'the chat shows the error');

  // Nothing more runs until a card is added: the next message fails at once, before any model call.
  const again = await s.run();
  assert.is(again.error_message, failed.error_message);
  assert.is(s.provider.requests.length, 3);
});

billing('with a payment method, the monthly limit applies instead of the credits', async () => {
  const s = await setup(0.4);
  await s.db.query(ADD_CARD, [s.user.id]);
  assert.is((await call('/api/users/me/limit', { method: 'PATCH', token: s.user.token, body: { limit_cents: 100 } })).status, 200);
  const failed = await s.run();
  // 0.40, 0.80 are under $1.00, so a third call starts; its $1.20 stops the fourth.
  assert.is(s.provider.requests.length, 3);
  assert.is(failed.error_message, 'Monthly spend limit reached: $1.20 of $1.00 used this month. Raise the limit in Billing settings to continue.');
});

billing('spend from an earlier month does not count against this month\'s limit', async () => {
  const s = await setup(0.001);
  await s.db.query(ADD_CARD, [s.user.id]);
  await call('/api/users/me/limit', { method: 'PATCH', token: s.user.token, body: { limit_cents: 100 } });
  await s.db.query(
    `INSERT INTO llm_traces (owner_id, agent_id, thread_name, model, estimated_cost, created_at)
     VALUES ($1, $2, 'Main: last month', 'x', 50, date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 second')`,
    [s.user.id, s.agent.id]);
  const provider = scripted([[text('done')]]);
  await runner!.stop();
  runner = await swapRunner({ provider });
  const t = (await s.post(`/api/threads/${s.agent.id}/create-new-thread`, { user_text: 'one call' })).body;
  await s.post(`/api/agents/${s.agent.id}/run-state`, { state: 'run_all' });
  const row = await waitFor(async () => {
    const r = (await call(`/api/threads/${t.id}`, { token: s.user.token })).body;
    return !r.thread_running && r.schedule_sequence === null ? r : null;
  }, 10_000, 'the run to finish');
  assert.is(row.error_message, '');
  assert.is(provider.requests.length, 1);
});

billing('eight agents at once against a $1 limit: calls in flight count, so usage passes the limit by one call at most', async () => {
  // Every call is held until each agent's run has either reached the model or been refused: without
  // reservations all eight pass the check before any call is recorded.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const provider = scripted([async () => (await held, [text('done')])], 'priced', 0.4);
  await runner?.stop();
  runner = await swapRunner({ provider });
  const user = await newUser('eight');
  const { db } = (await testServer()).parts;
  await db.query(ADD_CARD, [user.id]);
  assert.is((await call('/api/users/me/limit', { method: 'PATCH', token: user.token, body: { limit_cents: 100 } })).status, 200);
  const threads: { agent: number; thread: number }[] = [];
  for (let i = 0; i < 8; i++) {
    const agent = await newAgent(user.id, `Spender ${i}`);
    const t = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'one call' } })).body;
    threads.push({ agent: agent.id, thread: t.id });
  }
  for (const { agent } of threads) await call(`/api/agents/${agent}/run-state`, { token: user.token, body: { state: 'run_all' } });
  const refused = async () => {
    let n = 0;
    for (const { thread } of threads) if ((await call(`/api/threads/${thread}`, { token: user.token })).body.error_message) n++;
    return n;
  };
  await waitFor(async () => provider.requests.length + (await refused()) === 8 || null, 30_000, 'every agent to reach the model or be refused');
  release();
  await waitFor(async () => {
    const rows = await Promise.all(threads.map(async ({ thread }) => (await call(`/api/threads/${thread}`, { token: user.token })).body));
    return rows.every((r) => !r.thread_running && (r.schedule_sequence === null || r.error_message)) || null;
  }, 30_000, 'every run to end');
  const spent = (await db.one<{ s: number }>('SELECT COALESCE(sum(estimated_cost), 0)::float8 AS s FROM llm_traces WHERE owner_id = $1', [user.id]))!.s;
  // $0.40 + $0.40 are under $1.00, so a third call may start; the fourth may not.
  assert.is(provider.requests.length, 3);
  assert.ok(spent <= 1 + 0.4 + 1e-9, `spent $${spent}`);
  assert.is(await refused(), 5);
  const left = await db.one<{ n: number }>('SELECT count(*)::int AS n FROM spend_reservations WHERE owner_id = $1', [user.id]);
  assert.is(left!.n, 0, 'every reservation settled');
});

billing.run();
