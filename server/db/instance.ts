// This server process as the other instances on one database see it: one id (host:pid:random), one row in the
// instances registry kept fresh by one heartbeat, and one rule for when another instance is dead: no heartbeat for
// staleSeconds, or, on this very host, its process gone (a crash, then a quick restart, need not wait). The runner,
// the desktop fleet and the audit trail all use it. Several users share the heartbeat (start/stop count them).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Queryable } from './db.ts';
import { processAlive } from '../system/processes.ts';

/** A registry row as another instance reads it; `stale`: no heartbeat within the reader's staleSeconds. */
export type InstanceRow = { id: string; host: string; pid: number; address: string | null; desktop_host: boolean; heartbeat_at: Date };

export const HEARTBEAT_MS = 5000;

export class Instance {
  readonly host = hostname();
  readonly pid = process.pid;
  readonly id: string;
  /** What the fleet announces: the address other instances call (INTERNAL_URL) and whether it starts desktops. */
  private announced: { address: string | null; desktopHost: boolean } = { address: null, desktopHost: false };
  private timer: NodeJS.Timeout | null = null;
  private users = 0;

  constructor(private db: Queryable, id?: string, private heartbeatMs = HEARTBEAT_MS, private onError: (m: string) => void = () => {}) {
    this.id = id ?? `${this.host}:${this.pid}:${randomUUID().slice(0, 8)}`;
  }

  /** Another instance is dead when stale, or on this host with its process gone; this one never is. */
  isDead(row: { id?: string; host: string; pid: number; stale: boolean }): boolean {
    if (row.id === this.id) return false;
    return row.stale || (row.host === this.host && row.pid !== this.pid && !processAlive(row.pid));
  }

  /** Writes the heartbeat now (and what was announced). */
  async beat(): Promise<void> {
    await this.db.query(
      `INSERT INTO instances (id, host, pid, address, desktop_host) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), address = EXCLUDED.address, desktop_host = EXCLUDED.desktop_host`,
      [this.id, this.host, this.pid, this.announced.address, this.announced.desktopHost]);
  }

  /** The fleet's address and role, in the row from now on. */
  async announce(address: string, desktopHost: boolean): Promise<void> {
    this.announced = { address, desktopHost };
    await this.beat();
  }

  /** One more user of the heartbeat: the first writes the row and starts the timer. */
  async start(): Promise<void> {
    if (this.users++ > 0) return;
    await this.beat();
    this.timer = setInterval(() => void this.beat().catch((err) => this.onError(`instance: heartbeat failed: ${err.message}`)), this.heartbeatMs);
    this.timer.unref();
  }

  /** One user fewer: the last stops the heartbeat and takes the row away (the instance retires). */
  async stop(): Promise<void> {
    if (this.users === 0 || --this.users > 0) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await retireInstance(this.db, this.id).catch(() => {});
  }
}

export async function retireInstance(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM instances WHERE id = $1', [id]);
}

/** Instances with a heartbeat within staleSeconds; rows a day old are swept on the way. */
export async function liveInstances(db: Queryable, staleSeconds: number): Promise<InstanceRow[]> {
  await db.query(`DELETE FROM instances WHERE heartbeat_at < now() - interval '1 day'`);
  return db.query<InstanceRow>(
    `SELECT id, host, pid, address, desktop_host, heartbeat_at FROM instances
     WHERE heartbeat_at > now() - make_interval(secs => $1) ORDER BY started_at, id`, [staleSeconds]);
}
