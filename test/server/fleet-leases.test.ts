// The desktop lease's SQL (server/desktop/place/leases.ts) on PostgreSQL, and on PGlite on its pass: many instances
// claiming one agent at once get exactly one holder and the others see it; a stale or dead holder is taken over once;
// a released lease is free again; a renewal keeps only the leases still held.
import { randomBytes, randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openDb, type Db } from '../../server/db/db.ts';
import { migrate } from '../../server/migrations.ts';
import { claimLease, leaseOf, releaseLease, renewLeases, type Instance } from '../../server/desktop/place/leases.ts';
import { deploymentSecret } from '../../server/db/deployment-secrets.ts';
import { SecretBox } from '../../server/system/secret-box.ts';

const leases = suite('fleet: desktop leases');
const s = {} as { admin: Db | null; db: Db; schema: string; agent: number };
const instance = (n: number): Instance => ({ id: `host-${n}:${1000 + n}:x`, address: `http://10.0.0.${n}:8080`, host: `host-${n}`, pid: 1000 + n });
const alive = () => false;
/** The key every instance of this deployment starts with (SECRETS_KEY). */
const box = new SecretBox(randomBytes(32), 'SECRETS_KEY');

leases.before(async () => {
  const url = process.env.TEST_DATABASE_URL;
  s.admin = url ? await openDb({ databaseUrl: url }) : null;
  if (s.admin) {
    s.schema = `test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    await s.admin.query(`CREATE SCHEMA ${s.schema}`);
  }
  s.db = url ? await openDb({ databaseUrl: url, schema: s.schema }) : await openDb({ dataDir: null });
  await migrate(s.db);
  const [user] = await s.db.query<{ id: number }>(`INSERT INTO users (email, password_hash) VALUES ('lease@test.local', 'x') RETURNING id`);
  const [agent] = await s.db.query<{ id: number }>(`INSERT INTO agents (owner_id, name) VALUES ($1, 'Leased') RETURNING id`, [user.id]);
  s.agent = agent.id;
});

leases.after(async () => {
  await s.db.close();
  await s.admin?.query(`DROP SCHEMA ${s.schema} CASCADE`);
  await s.admin?.close();
});

leases('without INTERNAL_SECRET, instances starting at once all sign with the one secret the database keeps', async () => {
  const secrets = await Promise.all([...Array(6).keys()].map(() => deploymentSecret(s.db, box, 'internal')));
  assert.is(new Set(secrets).size, 1);
  assert.ok(secrets[0].length >= 32, 'as long as a configured one must be');
  assert.is(await deploymentSecret(s.db, box, 'internal'), secrets[0], 'a later start reads it back');
  const [row] = await s.db.query<{ value: string }>(`SELECT value FROM deployment_secrets WHERE name = 'internal'`);
  assert.not.ok(row.value.includes(secrets[0]), 'kept sealed');
  // Another key does not open it, and says so (the start stops): it is never made afresh.
  const other = new SecretBox(randomBytes(32), 'SECRETS_KEY');
  await deploymentSecret(s.db, other, 'internal').then(() => assert.unreachable(), (err) => assert.match(err.message, /does not open/));
});

leases('eight instances claiming one agent at once: exactly one holds it, the others are told who', async () => {
  const claims = await Promise.all([...Array(8).keys()].map(async (n) => {
    for (;;) {
      const claim = await claimLease(s.db, instance(n), s.agent, 30, alive);
      if (claim.held !== 'busy') return claim;
    }
  }));
  const mine = claims.filter((c) => c.held === 'mine');
  assert.is(mine.length, 1);
  const holder = (await leaseOf(s.db, s.agent, 30))!;
  for (const c of claims) if (c.held === 'other') assert.is(c.lease.instance_id, holder.instance_id);
  await releaseLease(s.db, holder.instance_id, s.agent);
  assert.is(await leaseOf(s.db, s.agent, 30), null, 'released: free again');
});

leases('a live holder keeps it; a stale one, or one whose process is gone, is taken over once', async () => {
  const [one, two, three] = [instance(1), instance(2), instance(3)];
  assert.is((await claimLease(s.db, one, s.agent, 30, alive)).held, 'mine');
  assert.is((await claimLease(s.db, two, s.agent, 30, (l) => l.stale)).held, 'other', 'fresh: kept');
  await s.db.query(`UPDATE desktop_leases SET heartbeat_at = now() - interval '1 minute' WHERE agent_id = $1`, [s.agent]);
  const taken = await claimLease(s.db, two, s.agent, 30, (l) => l.stale);
  assert.is(taken.held, 'mine');
  assert.is(taken.held === 'mine' && taken.takenFrom?.instance_id, one.id);
  assert.is((await claimLease(s.db, three, s.agent, 30, (l) => l.stale)).held, 'other', 'taken over once, not twice');
  // Its process gone (judged by the caller on the holder's host): taken over at once, though fresh.
  const now = await claimLease(s.db, three, s.agent, 30, (l) => l.pid === two.pid);
  assert.is(now.held === 'mine' && now.takenFrom?.instance_id, two.id);
  await releaseLease(s.db, three.id, s.agent);
});

leases('a renewal keeps the leases the instance still holds, and tells which', async () => {
  const [one, two] = [instance(1), instance(2)];
  assert.equal(await renewLeases(s.db, one.id), []);
  await claimLease(s.db, one, s.agent, 30, alive);
  assert.equal(await renewLeases(s.db, one.id), [s.agent]);
  await s.db.query(`UPDATE desktop_leases SET heartbeat_at = now() - interval '1 minute' WHERE agent_id = $1`, [s.agent]);
  await claimLease(s.db, two, s.agent, 30, (l) => l.stale);
  assert.equal(await renewLeases(s.db, one.id), [], 'lost to the takeover');
  assert.equal(await renewLeases(s.db, two.id), [s.agent]);
});

leases.run();
