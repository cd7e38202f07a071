// The admins' spend report: per user and month from the traces' cost, top agents, near/over the limit, CSV.
import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';

const spend = suite('admin: spend report');

spend('spend per user for a month, their top agents, and who is near or over the limit; CSV with the same', async () => {
  const { parts, url } = await testServer();
  const ann = await newUser('spend-ann');
  const bob = await newUser('spend-bob');
  const [a1, a2] = [await newAgent(ann.id, 'Researcher'), await newAgent(ann.id, 'Writer')];
  const b1 = await newAgent(bob.id, 'Helper');
  const trace = (owner: number, agent: number, usd: number, at: string) => parts.db.query(
    'INSERT INTO llm_traces (owner_id, agent_id, estimated_cost, created_at) VALUES ($1, $2, $3, $4)', [owner, agent, usd, at]);
  await trace(ann.id, a1.id, 6, '2031-03-02T10:00:00Z');
  await trace(ann.id, a2.id, 3, '2031-03-20T10:00:00Z');
  await trace(ann.id, a1.id, 1, '2031-04-01T00:00:00Z'); // April: not in March
  await trace(bob.id, b1.id, 0.5, '2031-03-31T23:59:59Z');
  await parts.db.query('UPDATE users SET monthly_spend_limit_cents = $2 WHERE id = $1', [ann.id, 1000]); // $9 of $10: near
  await parts.db.query('UPDATE users SET monthly_spend_limit_cents = $2 WHERE id = $1', [bob.id, 40]); // $0.50 of $0.40: over
  const admin = await adminToken();

  const res = await call('/api/admin/spend?month=2031-03', { token: admin });
  assert.is(res.status, 200);
  const rows = res.body.users.filter((u: any) => [ann.id, bob.id].includes(u.user_id));
  assert.equal(rows.map((u: any) => [u.email, Math.round(u.spend_cents), u.status]), [[ann.email, 900, 'near'], [bob.email, 50, 'over']]);
  assert.equal(rows[0].top_agents.map((a: any) => [a.name, Math.round(a.spend_cents)]), [['Researcher', 600], ['Writer', 300]]);
  assert.is((await call('/api/admin/spend?month=2031-13', { token: admin })).status, 422);
  assert.is((await call('/api/admin/spend', { token: ann.token })).status, 403);

  const csv = await fetch(`${url}/api/admin/spend/export?month=2031-04&months=2`, { headers: { Authorization: `Bearer ${admin}` } });
  assert.is(csv.status, 200);
  const parsed = JSON.parse(execFileSync('python3', ['-c', 'import csv, json, sys; print(json.dumps(list(csv.DictReader(sys.stdin))))'],
    { input: await csv.text() }).toString());
  const mine = parsed.filter((r: any) => [ann.email, bob.email].includes(r.email));
  assert.equal(mine.map((r: any) => [r.month, r.email, r.spend_usd, r.limit_usd, r.status]), [
    ['2031-03', ann.email, '9.00', '10.00', 'near'], ['2031-03', bob.email, '0.50', '0.40', 'over'], ['2031-04', ann.email, '1.00', '10.00', 'ok'],
  ]);
  assert.is(mine[0].top_agents, 'Researcher (6.00); Writer (3.00)');
});

spend.run();
