// Each credential's fill history: every fill an agent asked for, typed, refused, denied or suspected of a leak.
import type { Queryable } from '../db/db.ts';

export type FillRecord = { credential_id: number; agent_id: number; thread_id: number | null; field: string; target: string; outcome: string };
export type Fill = { at: string; agent_id: number | null; thread_id: number | null; field: string; target: string; outcome: string };

export async function recordFill(q: Queryable, f: FillRecord): Promise<void> {
  await q.query('INSERT INTO credential_fills (credential_id, agent_id, thread_id, field, target, outcome) VALUES ($1, $2, $3, $4, $5, $6)',
    [f.credential_id, f.agent_id, f.thread_id, f.field, f.target, f.outcome]);
}

/** Newest first, at most `limit`. */
export async function listFills(q: Queryable, credentialId: number, limit = 200): Promise<Fill[]> {
  return q.query<Fill>(
    'SELECT at, agent_id, thread_id, field, target, outcome FROM credential_fills WHERE credential_id = $1 ORDER BY id DESC LIMIT $2',
    [credentialId, limit]);
}
