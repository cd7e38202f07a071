// Audit trail benchmark (issue 25 budgets): what writing the event adds to a change — an agent update (one of
// its texts), p50 with the event minus p50 of the same transaction without it, under 1 ms — alone and with 8
// writers at once (the chain's head row serialises appends); and a filtered page of /api/admin/audit at
// 1,000,000 events, under 50 ms (the worst p50 of several filters). PostgreSQL (BENCH_DATABASE_URL or
// TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test), in a throwaway schema.
// Usage: node scripts/bench-audit.mjs [events] — e.g. 100000 for a quicker run.
import { randomBytes } from 'node:crypto';
import { register } from 'node:module';

register('../test/setup/ts-loader.mjs', import.meta.url);

const { PG_URL, pgAvailable, throwawaySchema } = await import('./bench-server.mjs');
const { migrate } = await import('../server/migrations.ts');
const { record } = await import('../server/audit/audit.ts');
const { useAuditKey } = await import('../server/audit/hash.ts');
const { SecretBox } = await import('../server/system/secret-box.ts');
const { appendBulk } = await import('../test/server/audit-bulk.ts');
const { listAudit, verifyAudit } = await import('../server/audit/read.ts');
const { benchResult, median } = await import('./bench-result.mjs');

const EVENTS = Number(process.argv[2] || 1_000_000);
const UPDATES = 400;
const WRITERS = 8;

if (!(await pgAvailable())) {
  console.log(`audit: skipped, PostgreSQL at ${PG_URL} is unreachable`);
  process.exit(0);
}

const { db, drop } = await throwawaySchema();
try {
  await migrate(db);
  useAuditKey(new SecretBox(randomBytes(32), 'SECRETS_KEY')); // as start() does with the server's key
  const [{ id: owner }] = await db.query(`INSERT INTO users (email) VALUES ('bench-audit@example.test') RETURNING id`);
  // The accounts the events name (the actor filter reads an e-mail as the account's id).
  await db.query(`INSERT INTO users (email) SELECT 'user' || g || '@example.test' FROM generate_series(2, 1000) g`);
  const agents = (await db.query(`INSERT INTO agents (owner_id, name) SELECT $1, 'Agent ' || g FROM generate_series(1, $2) g RETURNING id`,
    [owner, WRITERS])).map((r) => r.id);

  // First the history (times over the past year, so they come before the updates' events; keyed as record() does), then the updates.
  // EVENTS events: 1,000 users (every tenth impersonated by an admin), 12 actions, 5,000 agents as targets, over a year.
  const began = performance.now();
  const CHUNK = 100_000;
  const ACTIONS = ['agent.update', 'agent.create', 'agent.delete', 'agent.run_state', 'mail.draft', 'mail.approve', 'mail.send', 'mail.edit',
    'auth.sign_in', 'auth.sign_out', 'schedule.create', 'file.upload'];
  const yearAgo = Date.now() - 365 * 86_400_000;
  for (let from = 1; from <= EVENTS; from += CHUNK) {
    const events = [];
    for (let i = from; i <= Math.min(EVENTS, from + CHUNK - 1); i++) {
      const action = ACTIONS[i % 12];
      const u = 1 + ((i * 7919) % 1000);
      const imp = i % 10 === 0 ? 1001 : null;
      events.push({
        at: new Date(yearAgo + (i / EVENTS) * 365 * 86_400_000).toISOString(), instance: 'bench', actor_type: 'user', actor_id: u,
        actor_label: `user${u}@example.test`, impersonator_id: imp, impersonator_label: imp ? 'admin@example.test' : null, action,
        target_type: action.startsWith('mail.') ? 'message' : 'agent', target_id: String(1 + ((i * 104729) % 5000)), request_id: `req-${i}`,
        ip: `10.0.0.${i % 250}`, user_agent: 'bench', detail: JSON.stringify({ field: 'notes', to_chars: i % 500 }),
      });
    }
    await appendBulk(db, events);
  }
  await db.query('ANALYZE audit_events');
  const [{ total }] = await db.query('SELECT count(*)::int AS total FROM audit_events');
  console.log(`${total.toLocaleString('en')} events written in ${((performance.now() - began) / 1000).toFixed(1)} s`);

  // The agent update as setAgentText makes it (server/agents/agents.ts), with and without its event.
  const update = (agentId, value, audited) => db.tx(async (q) => {
    const [before] = await q.query(
      `WITH old AS (SELECT length(notes) AS n FROM agents WHERE id = $1 FOR UPDATE) UPDATE agents SET notes = $2, updated_at = now()
       FROM old WHERE agents.id = $1 RETURNING old.n`, [agentId, value]);
    if (audited) {
      await record(q, { action: 'agent.update', actor: { type: 'user', id: owner, label: 'bench-audit@example.test' },
        target: { type: 'agent', id: agentId }, detail: { field: 'notes', from_chars: before.n, to_chars: value.length } });
    }
  });
  const timeOne = async (agentId, i, audited) => {
    const began = performance.now();
    await update(agentId, `note ${i}`, audited);
    return performance.now() - began;
  };
  for (let i = 0; i < 50; i++) await timeOne(agents[0], i, i % 2 === 0); // warm the pool and the plans
  const alone = { with: [], without: [] };
  for (let i = 0; i < UPDATES; i++) {
    // Interleaved, so a slower moment of the machine weighs on both.
    alone.with.push(await timeOne(agents[0], i, true));
    alone.without.push(await timeOne(agents[0], i, false));
  }
  const together = { with: [], without: [] };
  for (const audited of [true, false, true, false]) {
    const into = audited ? together.with : together.without;
    await Promise.all(agents.map(async (agentId) => {
      for (let i = 0; i < UPDATES / 4; i++) into.push(await timeOne(agentId, i, audited));
    }));
  }
  const added = median(alone.with) - median(alone.without);
  const addedTogether = median(together.with) - median(together.without);
  console.log(`agent update: p50 ${median(alone.without).toFixed(3)} ms without the event, ${median(alone.with).toFixed(3)} ms with it; `
    + `${WRITERS} writers at once: ${median(together.without).toFixed(3)} → ${median(together.with).toFixed(3)} ms`);
  benchResult('audit: added to an agent update (p50)', added, 'ms', '< 1 ms', median(alone.without));
  benchResult(`audit: added to an agent update, ${WRITERS} writers at once (p50)`, addedTogether, 'ms', '< 1 ms', median(together.without));

  const day = 86_400_000;
  const filters = {
    'newest page, no filter': {},
    'action prefix mail.': { action: 'mail.' },
    'one action': { action: 'agent.delete' },
    'an action prefix nothing has': { action: 'nothing.' },
    'one actor (e-mail)': { actor: 'user42@example.test' },
    'one actor (an e-mail of no account)': { actor: 'nobody@example.test' },
    'one actor (id), impersonations included': { actor: '1001' },
    'one target': { target_type: 'agent', target_id: '1234' },
    'actor + action prefix': { actor: 'user42@example.test', action: 'agent.' },
    'a week, 90 days ago': { since: new Date(Date.now() - 90 * day), until: new Date(Date.now() - 83 * day) },
    'action prefix + a month': { action: 'auth.', since: new Date(Date.now() - 200 * day), until: new Date(Date.now() - 170 * day) },
  };
  let worst = 0;
  for (const [label, filter] of Object.entries(filters)) {
    const first = await listAudit(db, filter);
    const times = [];
    for (let i = 0; i < 21; i++) {
      const t0 = performance.now();
      // Every other run the second page, through the cursor.
      await listAudit(db, { ...filter, cursor: i % 2 && first.next_cursor ? Number(first.next_cursor) : null });
      times.push(performance.now() - t0);
    }
    const p50 = median(times);
    worst = Math.max(worst, p50);
    console.log(`  filtered page (${label}): p50 ${p50.toFixed(2)} ms, ${first.events.length} events`);
  }
  benchResult(`audit: a filtered page at ${total.toLocaleString('en')} events (worst p50 of ${Object.keys(filters).length} filters)`, worst, 'ms', '< 50 ms');
  const v0 = performance.now();
  const verdict = await verifyAudit(db);
  console.log(`verify: ${JSON.stringify(verdict)} in ${((performance.now() - v0) / 1000).toFixed(1)} s`);
  benchResult(`audit: verify ${total.toLocaleString('en')} events`, (performance.now() - v0) / 1000, 's', 'informational');
} finally {
  await drop();
}
