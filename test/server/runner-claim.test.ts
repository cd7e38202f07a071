// Claim exclusivity: with TEST_DATABASE_URL, two runner instances (two connection pools, as two
// servers would have) share one PostgreSQL schema; with PGlite one runner does the same work.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openDb, type Db } from '../../server/db/db.ts';
import { Runner } from '../../server/runner/runner.ts';
import { claimNext } from '../../server/runner/claim.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';
import { fakeDesktops, fakePerform, scripted, text, waitFor } from './runner-helpers.ts';

const claims = suite(process.env.TEST_DATABASE_URL ? 'runner: two instances on one PostgreSQL' : 'runner: claims (PGlite, one instance)');
const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };
const extraDbs: Db[] = [];
const runners: Runner[] = [];

claims.after(async () => {
  for (const r of runners) await r.stop();
  for (const db of extraDbs) await db.close();
});

claims('every queued thread runs exactly once, and no agent ever runs two threads at once', async () => {
  const server = await testServer();
  await server.parts.runner?.stop();
  const { db, bus } = server.parts;
  const dbs: Db[] = [db];
  if (process.env.TEST_DATABASE_URL) {
    const [{ schema }] = await db.query<{ schema: string }>('SELECT current_schema() AS schema');
    const second = await openDb({ databaseUrl: process.env.TEST_DATABASE_URL, schema });
    extraDbs.push(second);
    dbs.push(second);
  }

  const runsOf = new Map<number, string[]>(); // thread → instance ids that ran it
  const busy = new Map<number, number>(); // agent → threads running now
  let overlap = 0;
  const instances = dbs.map((instanceDb, i) => {
    const id = `claim-test-${i}`;
    const provider = scripted([async (req) => {
      const marker = JSON.stringify(req.messages[0].content);
      const [, threadId, agentId] = /thread (\d+) of agent (\d+)/.exec(marker)!.map(Number);
      runsOf.set(threadId, [...(runsOf.get(threadId) ?? []), id]);
      busy.set(agentId, (busy.get(agentId) ?? 0) + 1);
      if (busy.get(agentId)! > 1) overlap++;
      await new Promise((r) => setTimeout(r, 15));
      busy.set(agentId, busy.get(agentId)! - 1);
      return [text('done')];
    }]);
    return new Runner({
      db: instanceDb, bus, log: quiet, provider, desktops: fakeDesktops(), performAction: fakePerform, instanceId: id, pollMs: 10, maxConcurrent: 4,
    });
  });
  runners.push(...instances);

  const user = await newUser('claims');
  const threadIds: number[] = [];
  const agents = [];
  for (let a = 0; a < 5; a++) agents.push(await newAgent(user.id));
  for (const agent of agents) {
    for (let t = 0; t < 3; t++) {
      const created = (await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'placeholder' } })).body;
      await db.query('UPDATE thread_steps SET user_text = $2 WHERE thread_id = $1', [created.id, `thread ${created.id} of agent ${agent.id}`]);
      threadIds.push(created.id);
    }
  }
  // All agents go fast at once, and both instances race for the work.
  await db.query(`UPDATE agents SET target_run_state = 'run_all' WHERE id = ANY($1::int[])`, [agents.map((a) => a.id)]);
  const began = Date.now();
  await Promise.all(instances.map((r) => r.start()));
  await waitFor(async () => {
    const [{ n }] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM threads WHERE id = ANY($1::int[]) AND (schedule_sequence IS NOT NULL OR thread_running)', [threadIds]);
    return n === 0;
  }, 15_000, 'every queue to empty');
  await Promise.all(instances.map((r) => r.idle()));
  await Promise.all(instances.map((r) => r.stop()));
  if (process.env.TEST_VERBOSE) console.log(`ran ${threadIds.length} threads in ${Date.now() - began} ms`);

  for (const id of threadIds) assert.is(runsOf.get(id)?.length, 1, `thread ${id} ran once (${runsOf.get(id)})`);
  assert.is(overlap, 0, 'an agent never ran two threads at once');
  const [{ traces }] = await db.query<{ traces: number }>('SELECT count(*)::int AS traces FROM llm_traces WHERE thread_id = ANY($1::int[])', [threadIds]);
  assert.is(traces, threadIds.length);
  const [{ steps }] = await db.query<{ steps: number }>(
    `SELECT count(*)::int AS steps FROM thread_steps WHERE thread_id = ANY($1::int[]) AND assistant_text = 'done'`, [threadIds]);
  assert.is(steps, threadIds.length);
  const agentRows = await db.query('SELECT agent_running, running_state FROM agents WHERE id = ANY($1::int[])', [agents.map((a) => a.id)]);
  assert.ok(agentRows.every((r) => r.agent_running === false && r.running_state === 'idle'));
  if (dbs.length > 1) {
    const by = new Set([...runsOf.values()].flat());
    console.log(`    (instances that ran threads: ${[...by].join(', ')})`);
  }
});

claims('concurrent claims of one queue head: exactly one wins', async () => {
  const server = await testServer();
  const { db } = server.parts;
  const user = await newUser('race');
  const agent = await newAgent(user.id);
  await call(`/api/threads/${agent.id}/create-new-thread`, { token: user.token, body: { user_text: 'one head' } });
  await db.query(`UPDATE agents SET target_run_state = 'run_all' WHERE id = $1`, [agent.id]);
  const dbs = [db, ...extraDbs];
  try {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => claimNext(dbs[i % dbs.length], `racer-${i}`, agent.id)));
    assert.is(results.filter(Boolean).length, 1);
  } finally {
    await db.query(`UPDATE threads SET thread_running = false, run_owner = NULL, schedule_sequence = NULL WHERE agent_id = $1`, [agent.id]);
    await db.query(`UPDATE agents SET target_run_state = 'stop', agent_running = false WHERE id = $1`, [agent.id]);
  }
});

claims.run();
