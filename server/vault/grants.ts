// Which agents may use a credential, and what an agent's run is told of its credentials: names, targets and which
// fields are set, never a value.
import type { Queryable } from '../db/db.ts';
import { invalid } from '../http/errors.ts';

export type GrantChange = { added: number[]; removed: number[] };

/** Grants the credential to exactly `agentIds` (each an agent of the credential's owner); what changed. */
export async function setGrants(q: Queryable, credentialId: number, ownerId: number, agentIds: number[], askEachTime: boolean): Promise<GrantChange> {
  const owned = await q.query<{ id: number }>('SELECT id FROM agents WHERE owner_id = $1 AND id = ANY($2::int[])', [ownerId, agentIds]);
  const foreign = agentIds.find((id) => !owned.some((a) => a.id === id));
  if (foreign !== undefined) throw invalid('agent_ids', `agent_ids: agent ${foreign} not found`);
  const before = (await q.query<{ agent_id: number }>(
    'SELECT agent_id FROM credential_grants WHERE credential_id = $1 FOR UPDATE', [credentialId])).map((r) => r.agent_id);
  const added = agentIds.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !agentIds.includes(id));
  if (removed.length) await q.query('DELETE FROM credential_grants WHERE credential_id = $1 AND agent_id = ANY($2::int[])', [credentialId, removed]);
  for (const id of added) await q.query('INSERT INTO credential_grants (credential_id, agent_id) VALUES ($1, $2)', [credentialId, id]);
  await q.query('UPDATE credentials SET ask_each_time = $2, updated_at = now() WHERE id = $1', [credentialId, askEachTime]);
  return { added, removed };
}

/** A credential as the agent's model sees it. */
export type GrantedCredential = { name: string; targets: string[]; fields: string[] };

export async function grantedTo(q: Queryable, agentId: number): Promise<GrantedCredential[]> {
  const rows = await q.query<{ name: string; targets: string[]; u: boolean; p: boolean; t: boolean }>(
    `SELECT c.name, c.targets, c.username_sealed IS NOT NULL AS u, c.password_sealed IS NOT NULL AS p, c.totp_sealed IS NOT NULL AS t
       FROM credential_grants g JOIN credentials c ON c.id = g.credential_id WHERE g.agent_id = $1 ORDER BY lower(c.name)`, [agentId]);
  return rows.map((r) => ({
    name: r.name, targets: r.targets,
    fields: [...(r.u ? ['username'] : []), ...(r.p ? ['password'] : []), ...(r.t ? ['totp'] : []), ...(r.u && r.p ? ['sign_in'] : [])],
  }));
}

/** The credential of that name granted to the agent, sealed values included (for the fill alone). */
export type SealedCredential = {
  id: number; owner_id: number; name: string; targets: string[]; ask_each_time: boolean;
  username_sealed: string | null; password_sealed: string | null; totp_sealed: string | null;
};

export async function grantedCredential(q: Queryable, agentId: number, name: string): Promise<SealedCredential | null> {
  const [row] = await q.query<SealedCredential>(
    `SELECT c.id, c.owner_id, c.name, c.targets, c.ask_each_time, c.username_sealed, c.password_sealed, c.totp_sealed
       FROM credential_grants g JOIN credentials c ON c.id = g.credential_id WHERE g.agent_id = $1 AND c.name = $2`, [agentId, name]);
  return row ?? null;
}
