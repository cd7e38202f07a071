// The home checkpoints' SQL, by name (migration 028): one row per stored generation of an agent's home.
import type { Queryable } from '../../db/db.ts';

export type CheckpointRow = {
  agent_id: number;
  generation: number;
  blob_key: string;
  bytes: number;
  home_bytes: number;
  fingerprint: string;
  sha256: string;
  created_at: Date;
};

const COLUMNS = 'agent_id, generation, blob_key, bytes::float8 AS bytes, home_bytes::float8 AS home_bytes, fingerprint, sha256, created_at';

/** The agent's newest stored generation, or null. */
export async function newestCheckpoint(db: Queryable, agentId: number): Promise<CheckpointRow | null> {
  const [row] = await db.query<CheckpointRow>(
    `SELECT ${COLUMNS} FROM home_checkpoints WHERE agent_id = $1 ORDER BY generation DESC LIMIT 1`, [agentId]);
  return row ?? null;
}

/** Records a stored generation; false when that generation is taken (another instance stored one meanwhile). */
export async function insertCheckpoint(db: Queryable, row: Omit<CheckpointRow, 'created_at'>, instanceId: string | null): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO home_checkpoints (agent_id, generation, blob_key, bytes, home_bytes, fingerprint, sha256, instance_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING generation`,
    [row.agent_id, row.generation, row.blob_key, row.bytes, row.home_bytes, row.fingerprint, row.sha256, instanceId]);
  return rows.length === 1;
}

/** Removes the rows of the generations before `generation`; their blob keys (to delete after). */
export async function deleteOlderCheckpoints(db: Queryable, agentId: number, generation: number): Promise<string[]> {
  const rows = await db.query<{ blob_key: string }>(
    'DELETE FROM home_checkpoints WHERE agent_id = $1 AND generation < $2 RETURNING blob_key', [agentId, generation]);
  return rows.map((r) => r.blob_key);
}
