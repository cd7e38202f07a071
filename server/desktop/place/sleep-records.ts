// Which desktops sleep, as every instance sees it: the instance that froze a desktop writes one desktop_sleep row and
// removes it when the desktop wakes, stops or crashes. Writes go one after another, so a wake right after a sleep
// never lands before it. A row counts only while its instance beats (readers join the instances registry: the agents
// list in server/agents/agents.ts, the fleet's placements in leases.ts), so a crash's rows say nothing.
import type { Db } from '../../db/db.ts';
import type { Log } from '../../ops/log.ts';
import type { LocalDesktops } from './local-desktops.ts';

export function recordSleep(local: LocalDesktops, db: Db, instanceId: string, log: Log): void {
  let last: Promise<unknown> = Promise.resolve();
  // Stopping, the database closes too: this instance's rows then count for nothing (it stops beating).
  let closing = false;
  local.once('closing', () => (closing = true));
  const write = (sql: string, params: unknown[]) => {
    if (closing) return;
    last = last.then(() => db.query(sql, params)).catch((err) => log.error(`desktop sleep record: ${(err as Error).message}`));
  };
  const awake = (agentId: number) => write('DELETE FROM desktop_sleep WHERE agent_id = $1 AND instance_id = $2', [agentId, instanceId]);
  local.on('sleeping', (agentId: number) => write(
    `INSERT INTO desktop_sleep (agent_id, instance_id) VALUES ($1, $2)
     ON CONFLICT (agent_id) DO UPDATE SET instance_id = EXCLUDED.instance_id, since = now()`, [agentId, instanceId]));
  local.on('awake', awake);
  local.on('stopped', awake);
  local.on('crashed', awake);
}
