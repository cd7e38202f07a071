// The fleet's SQL: the lease that names the one instance running an agent's desktop (the instances themselves, and
// their heartbeat, are db/instance.ts's registry), taken with the runs' claim discipline (FOR UPDATE SKIP LOCKED, then a fresh
// look) and taken over once its holder is stale: no heartbeat for staleSeconds, or its pid gone on our host.
import type { Db, Queryable } from '../../db/db.ts';

export type Instance = { id: string; address: string; host: string; pid: number };
export type Lease = Instance & { agent_id: number; instance_id: string; heartbeat_at: Date; stale: boolean };
export type InstanceRow = Instance & { desktop_host: boolean; heartbeat_at: Date; desktops: number };

/** Renews the instance's leases; returns the agents whose lease it still holds. */
export async function renewLeases(db: Queryable, instanceId: string): Promise<number[]> {
  const rows = await db.query<{ agent_id: number }>('UPDATE desktop_leases SET heartbeat_at = now() WHERE instance_id = $1 RETURNING agent_id', [instanceId]);
  return rows.map((r) => r.agent_id);
}

/** Gives up every lease of the instance (it stops). */
export async function releaseAll(db: Queryable, instanceId: string): Promise<void> {
  await db.query('DELETE FROM desktop_leases WHERE instance_id = $1', [instanceId]);
}

/** A lease's columns, with `stale` judged against the staleSeconds in parameter `param`. */
const leaseColumns = (param: string) => `agent_id, instance_id, instance_id AS id, address, host, pid, heartbeat_at,
  heartbeat_at < now() - make_interval(secs => ${param}) AS stale`;

/** The agent's lease, if any, with whether its heartbeat is older than staleSeconds. */
export async function leaseOf(db: Queryable, agentId: number, staleSeconds: number): Promise<Lease | null> {
  const [row] = await db.query<Lease>(`SELECT ${leaseColumns('$2')} FROM desktop_leases WHERE agent_id = $1`, [agentId, staleSeconds]);
  return row ?? null;
}

export type ClaimResult =
  | { held: 'mine'; takenFrom: Lease | null }
  | { held: 'other'; lease: Lease }
  /** Another instance is claiming it right now: look again shortly. */
  | { held: 'busy' };

/**
 * Takes the agent's lease for `me` when nobody holds it, when we do already, or when its holder is dead
 * (`dead(lease)`: stale, or its pid gone on this host); otherwise names the holder.
 */
export async function claimLease(db: Db, me: Instance, agentId: number, staleSeconds: number, dead: (lease: Lease) => boolean): Promise<ClaimResult> {
  return db.tx(async (q) => {
    const [row] = await q.query<Lease>(
      `SELECT ${leaseColumns('$2')} FROM desktop_leases WHERE agent_id = $1 FOR UPDATE SKIP LOCKED`, [agentId, staleSeconds]);
    if (!row) {
      const inserted = await q.query(
        `INSERT INTO desktop_leases (agent_id, instance_id, address, host, pid) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (agent_id) DO NOTHING RETURNING agent_id`, [agentId, me.id, me.address, me.host, me.pid]);
      // Nothing inserted and nothing seen: the row exists but another instance holds its lock.
      return inserted.length ? { held: 'mine', takenFrom: null } : { held: 'busy' };
    }
    if (row.instance_id === me.id) {
      await q.query('UPDATE desktop_leases SET heartbeat_at = now() WHERE agent_id = $1', [agentId]);
      return { held: 'mine', takenFrom: null };
    }
    if (!dead(row)) return { held: 'other', lease: row };
    await q.query(
      `UPDATE desktop_leases SET instance_id = $2, address = $3, host = $4, pid = $5, taken_at = now(), heartbeat_at = now() WHERE agent_id = $1`,
      [agentId, me.id, me.address, me.host, me.pid]);
    return { held: 'mine', takenFrom: row };
  });
}

/** Gives the lease up (the desktop stopped here); a lease another instance took meanwhile stays. */
export async function releaseLease(db: Queryable, instanceId: string, agentId: number): Promise<void> {
  await db.query('DELETE FROM desktop_leases WHERE agent_id = $1 AND instance_id = $2', [agentId, instanceId]);
}

/** Live fleet instances (an address announced, a heartbeat within staleSeconds), each with the desktop leases it holds. */
export async function liveInstances(db: Queryable, staleSeconds: number): Promise<InstanceRow[]> {
  return db.query<InstanceRow>(
    `SELECT i.id, i.address, i.host, i.pid, i.desktop_host, i.heartbeat_at,
       (SELECT count(*) FROM desktop_leases l WHERE l.instance_id = i.id)::int AS desktops
     FROM instances i WHERE i.address IS NOT NULL AND i.heartbeat_at > now() - make_interval(secs => $1)
     ORDER BY i.started_at, i.id`, [staleSeconds]);
}

/** Every lease, for the Ops and Admin pages: which instance runs which agent's desktop. */
export async function allLeases(db: Queryable, staleSeconds: number): Promise<Lease[]> {
  return db.query<Lease>(`SELECT ${leaseColumns('$1')} FROM desktop_leases ORDER BY agent_id`, [staleSeconds]);
}
