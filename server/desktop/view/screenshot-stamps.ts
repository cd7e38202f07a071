// The stored screenshot of an agent's desktop: where it is, and when it was taken (agents.screenshot_at,
// which the agents grid turns into the picture's URL).
import type { Queryable } from '../../db/db.ts';

/** Notes the agent's stored screenshot; false when the agent is gone (deleted meanwhile). */
export async function stampScreenshot(db: Queryable, agentId: number, path: string): Promise<boolean> {
  const rows = await db.query('UPDATE agents SET screenshot_path = $2, screenshot_at = now() WHERE id = $1 RETURNING id', [agentId, path]);
  return rows.length > 0;
}

export async function agentExists(db: Queryable, agentId: number): Promise<boolean> {
  return (await db.query('SELECT 1 FROM agents WHERE id = $1', [agentId])).length > 0;
}
