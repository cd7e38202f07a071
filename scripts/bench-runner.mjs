// Runner benchmarks (issue 5 budgets; figures are printed, not asserted):
//   1. runner overhead per computer action, model excluded: the action (a screenshot), the step
//      writes, the chat message and the pushes — median over many actions, PGlite and PostgreSQL;
//      on the real desktop too when Xvnc and the desktop module are there.
//   2. GET /api/llm_traces/ page median with 1,000,000 traces in PostgreSQL (throwaway schema,
//      rows from generate_series), unfiltered, by owner, by thread name and by a date range.
//   3. GET /api/threads/{id}/steps with 100,000 steps in one thread, in PostgreSQL.
// Usage: node scripts/bench-runner.mjs [runner|traces|steps] — BENCH_DATABASE_URL or TEST_DATABASE_URL
// (default postgres://postgres@127.0.0.1:5432/test) names the PostgreSQL to use.
import { register } from 'node:module';
import { existsSync } from 'node:fs';

register('../test/setup/ts-loader.mjs', import.meta.url);

const { ADMIN, PG_URL, api, bootServer, pgAvailable } = await import('./bench-server.mjs');
const { benchResult } = await import('./bench-result.mjs');
const { Runner } = await import('../server/runner/runner.ts');
const { TOPICS } = await import('../server/realtime/topics.ts');

const only = process.argv[2];
const quiet = { info: () => {}, error: (m) => console.error(m) };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const ms = (n) => `${n.toFixed(2)} ms`;

/** A server on port 0 whose own runner is stopped (each bench brings its own). */
async function boot(engine) {
  const server = await bootServer(engine, 'runner');
  await server.running.parts.runner?.stop();
  return server;
}

// --- 1. runner overhead per computer action

async function desktopParts(engine) {
  // The real desktop when the desktop module is in place and Xvnc is installed, else a fake one
  // whose screenshot is a real 1280x800 PNG encode of a blank framebuffer.
  const haveModule = existsSync(new URL('../server/desktop/index.ts', import.meta.url));
  const { fakeDesktops, fakePerform } = await import('../test/server/runner-helpers.ts');
  if (haveModule && existsSync('/usr/bin/Xvnc') && engine.parts.desktops?.status().available) {
    const { performAction } = await import('../server/desktop/index.ts');
    return { desktops: engine.parts.desktops, performAction, label: 'real Xvnc desktop' };
  }
  return { desktops: fakeDesktops(), performAction: fakePerform, label: 'fake desktop (fixed PNG)' };
}

async function benchRunner(engine) {
  const { running, close } = await boot(engine);
  const base = running.url;
  const admin = (await api(base, '/api/auth/sign-in', { body: ADMIN })).token;
  const agent = await api(base, '/api/agents/', { token: admin, body: { name: 'Bench' } });
  const parts = await desktopParts(running);
  const ACTIONS = parts.label.startsWith('real') ? 60 : 200;
  // The same screenshot over and over on an unchanged screen is what the runaway guard pauses: not here.
  const lifted = { repeat_limit: 1000, cost_cap_cents: 10_000_000, max_calls: 100_000 };
  await api(base, `/api/agents/${agent.id}/supervision`, { method: 'PUT', token: admin, body: lifted });

  // A model that answers instantly: ACTIONS screenshots, then a final text. Its own time is
  // measured and subtracted.
  let calls = 0;
  let modelMs = 0;
  const provider = {
    name: 'bench', model: 'bench', offline: false,
    async complete() {
      const t0 = performance.now();
      calls++;
      const content = calls <= ACTIONS
        ? [{ type: 'tool_use', id: `t${calls}`, name: 'computer', input: { action: 'screenshot' } }]
        : [{ type: 'text', text: 'done' }];
      const response = {
        id: `m${calls}`, model: 'bench', role: 'assistant', content, stop_reason: calls <= ACTIONS ? 'tool_use' : 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 },
      };
      modelMs += performance.now() - t0;
      return { response, request: {}, parameters: {}, cost: 0, latencyMs: 0 };
    },
  };
  const turns = [];
  let last = 0;
  // The desktop's own time (settling, PNG encoding) is measured apart from the runner's.
  const actionTimes = [];
  const timedPerform = async (...args) => {
    const t = performance.now();
    try {
      return await parts.performAction(...args);
    } finally {
      actionTimes.push(performance.now() - t);
    }
  };
  if (parts.label.startsWith('real')) {
    const desktop = await parts.desktops.acquire(agent.id);
    await new Promise((r) => setTimeout(r, 3000)); // the terminal and the browser come up
    const shots = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await desktop.screenshot();
      shots.push(performance.now() - t);
    }
    console.log(`desktop.screenshot() alone (${engine}): median ${ms(median(shots))}`);
  }
  const runner = new Runner({
    db: running.parts.db, bus: running.parts.bus, log: quiet, provider, desktops: parts.desktops,
    performAction: timedPerform, pollMs: 20, maxTurns: ACTIONS + 5,
  });
  // Time each loop turn from one model reply to the next model call: action + step writes + pushes + trace.
  const origComplete = provider.complete;
  provider.complete = async (...args) => {
    const now = performance.now();
    if (last) turns.push(now - last);
    const r = await origComplete(...args);
    last = performance.now();
    return r;
  };
  let pushes = 0;
  running.parts.bus.subscribe(TOPICS.agentMessages(agent.id), () => pushes++);
  await runner.start();
  const thread = await api(base, `/api/threads/${agent.id}/create-new-thread`, { token: admin, body: { user_text: 'bench' } });
  running.parts.bus.subscribe(TOPICS.threadSteps(thread.id), () => pushes++);
  const t0 = performance.now();
  await api(base, `/api/agents/${agent.id}/run-state`, { token: admin, body: { state: 'run_all' } });
  for (;;) {
    const t = await api(base, `/api/threads/${thread.id}`, { token: admin });
    if (!t.thread_running && t.schedule_sequence === null) break;
    if (t.needs_help) throw new Error(`the run paused for a person: ${t.needs_help.question}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const total = performance.now() - t0;
  await runner.stop();
  await close();
  const overhead = turns.map((t, i) => t - (actionTimes[i] ?? 0));
  const where = parts.label.startsWith('real') ? 'Xvnc' : 'fake desktop';
  benchResult(`runner overhead per computer action (${engine}, ${where})`, median(overhead), 'ms', '< 100 ms median');
  console.log(`runner overhead per computer action, desktop time excluded (${engine}, ${parts.label}): median ${ms(median(overhead))}; ` +
    `the screenshot action itself (performAction: settle + PNG): median ${ms(median(actionTimes))}`);
  console.log(`  whole loop turn per computer action (${engine}, ${parts.label}): median ${ms(median(turns))}, ` +
    `p90 ${ms([...turns].sort((a, b) => a - b)[Math.floor(turns.length * 0.9)])} over ${turns.length} actions ` +
    `(${pushes} pushes; whole run ${ms(total)}, model ${ms(modelMs)}) — budget 100 ms`);
}

// --- 2. trace list with 1,000,000 traces

async function benchTraces() {
  const ROWS = 1_000_000;
  const { running, db, close } = await boot('postgres');
  const base = running.url;
  const admin = (await api(base, '/api/auth/sign-in', { body: ADMIN })).token;
  const t0 = performance.now();
  // 20 owners, 200 thread names; ~1 trace a minute going back ~2 years.
  await db.query(`INSERT INTO users (email, role) SELECT 'owner' || g || '@bench.test', 'user' FROM generate_series(1, 20) g`);
  const owners = (await db.query(`SELECT id FROM users WHERE email LIKE '%@bench.test' ORDER BY id`)).map((r) => r.id);
  await db.query(
    `INSERT INTO llm_traces (owner_id, thread_name, model, cache_read_tokens, input_tokens, output_tokens, estimated_cost, latency, parameters, created_at)
     SELECT ($1::int[])[1 + g % 20], CASE WHEN g % 7 = 0 THEN 'Sub: task ' ELSE 'Main: thread ' END || (g % 200), 'claude-sonnet-4-5',
            g % 5000, 1000 + g % 3000, 50 + g % 700, (g % 1000) / 100000.0, 0.5 + (g % 40) / 10.0,
            '{"provider":"anthropic","model":"claude-sonnet-4-5"}'::jsonb, now() - make_interval(mins => $2 - g)
     FROM generate_series(1, $2) g`, [owners, ROWS]);
  await db.query('VACUUM ANALYZE llm_traces'); // as autovacuum leaves a settled table
  console.log(`inserted ${ROWS.toLocaleString('en')} traces in ${(performance.now() - t0) / 1000 | 0} s`);

  const cases = [
    ['page 1, no filter (admin)', '/api/llm_traces/?page=1&page_size=20'],
    ['page 50, no filter', '/api/llm_traces/?page=50&page_size=20'],
    ['owner filter', `/api/llm_traces/?owner_id=${owners[3]}&page=1&page_size=20`],
    ['owner filter, page 10', `/api/llm_traces/?owner_id=${owners[3]}&page=10&page_size=20`],
    ['thread name filter', `/api/llm_traces/?thread_name=${encodeURIComponent('Main: thread 42')}&page=1&page_size=20`],
    ['owner + thread name', `/api/llm_traces/?owner_id=${owners[2]}&thread_name=${encodeURIComponent('Main: thread 42')}&page=1&page_size=20`],
    ['id range', '/api/llm_traces/?id_from=400000&id_to=400500&page=1&page_size=20'],
    ['last week', '/api/llm_traces/?created_at_from=' +
      `${encodeURIComponent(new Date(Date.now() - 7 * 864e5).toISOString().slice(0, 16).replace('T', ' '))}&page=1&page_size=20`],
    ['owners', '/api/llm_traces/owners'],
    ['thread names', '/api/llm_traces/thread_names'],
  ];
  for (const [label, path] of cases) {
    const times = [];
    let body;
    for (let i = 0; i < 25; i++) {
      const t = performance.now();
      body = await api(base, path, { token: admin });
      times.push(performance.now() - t);
    }
    const note = Array.isArray(body)
      ? `${body.length} items`
      : `${body.traces.length} rows, total_count ${body.total_count}${body.total_count_estimated ? ' (estimated)' : ''}`;
    benchResult(`scale: GET /api/llm_traces ${label}, 1M traces (median)`, median(times.slice(5)), 'ms', '< 50 ms');
    console.log(`GET ${label}: median ${ms(median(times.slice(5)))} (${note})${label.startsWith('page 1,') ? ' — budget 50 ms' : ''}`);
  }
  for (const [label, path] of [
    ['cost_by_day, no filter (all 1,000,000)', '/api/llm_traces/cost_by_day'],
    ['cost_by_day, one owner', `/api/llm_traces/cost_by_day?owner_id=${owners[3]}`],
  ]) {
    const times = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await api(base, path, { token: admin });
      times.push(performance.now() - t);
    }
    console.log(`GET ${label}: median ${ms(median(times))} (first ${ms(times[0])})`);
  }
  await close();
}

// --- 3. steps page with 100,000 steps in one thread

async function benchSteps() {
  const ROWS = 100_000;
  const { running, db, close } = await boot('postgres');
  const base = running.url;
  const admin = (await api(base, '/api/auth/sign-in', { body: ADMIN })).token;
  const agent = await api(base, '/api/agents/', { token: admin, body: { name: 'Scale' } });
  const thread = await api(base, '/api/threads/', { token: admin, body: { agent_id: agent.id } });
  const t0 = performance.now();
  await db.query(
    `INSERT INTO thread_steps (thread_id, sequence, assistant_text, user_text, tool_calls)
     SELECT $1, g, CASE WHEN g % 2 = 0 THEN 'Step ' || g || ': clicked the button' ELSE '' END, CASE WHEN g % 2 = 1 THEN 'continue ' || g ELSE '' END,
            CASE WHEN g % 2 = 0 THEN '[{"id":"t","name":"computer","input":{"action":"left_click","coordinate":[1,2]}}]'::jsonb ELSE '[]'::jsonb END
     FROM generate_series(1, $2) g`, [thread.id, ROWS]);
  await db.query('VACUUM ANALYZE thread_steps');
  console.log(`inserted ${ROWS.toLocaleString('en')} steps in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  for (const [label, path] of [['newest 100', `?limit=100`], ['newest 500', `?limit=500`], ['page at offset 50,000', `?limit=100&offset=50000`]]) {
    const times = [];
    let body;
    for (let i = 0; i < 25; i++) {
      const t = performance.now();
      body = await api(base, `/api/threads/${thread.id}/steps${path}`, { token: admin });
      times.push(performance.now() - t);
    }
    console.log(`GET steps ${label}: median ${ms(median(times.slice(5)))} (${body.steps.length} steps of ${body.total_count})`);
    benchResult(`scale: GET /api/threads/{id}/steps ${label}, 100k steps (median)`, median(times.slice(5)), 'ms', '< 50 ms');
  }
  await close();
}

if (!only || only === 'runner') {
  await benchRunner('pglite');
  if (await pgAvailable()) await benchRunner('postgres');
  else console.log(`runner overhead (postgres): skipped, no PostgreSQL at ${PG_URL}`);
}
if (!only || only === 'traces') {
  if (await pgAvailable()) await benchTraces();
  else console.log(`trace list with 1,000,000 traces: skipped, no PostgreSQL at ${PG_URL}`);
}
if (!only || only === 'steps') {
  if (await pgAvailable()) await benchSteps();
  else console.log(`steps with 100,000 steps: skipped, no PostgreSQL at ${PG_URL}`);
}
process.exit(0);
