// Wakes agents on their schedules: every tick, batches of due schedules are claimed and fired, each
// batch in one transaction (server/schedules/schedules.ts fireSchedules), which starts a queued thread
// with each schedule's message. Safe with several instances on one PostgreSQL: each claims rows no
// other holds (SKIP LOCKED), and a row one has fired is no longer due. No catch-up loop here: a
// missed slot is simply due, fires once, and its next run is computed from now.
import type { Db } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import type { Log } from '../ops/log.ts';
import { fireSchedules, type Fired } from './schedules.ts';

export type SchedulerOptions = {
  db: Db;
  bus: Bus;
  log: Log;
  /** Time between ticks (SCHEDULER_TICK_MS). @default 15000 */
  tickMs?: number;
  /** Due schedules fired per transaction. @default 200 */
  batch?: number;
  /** The clock; tests move it. @default () => new Date() */
  now?: () => Date;
};

export const DEFAULT_TICK_MS = 15_000;
const MAX_BATCHES_PER_TICK = 20; // a backlog bigger than this waits for the next tick

export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<Fired[]> | null = null;
  private stopped = true;
  private readonly tickMs: number;
  private readonly batch: number;
  private readonly now: () => Date;

  constructor(private options: SchedulerOptions) {
    this.tickMs = options.tickMs ?? DEFAULT_TICK_MS;
    this.batch = options.batch ?? 200;
    this.now = options.now ?? (() => new Date());
  }

  /** Ticks now and then every tickMs, each tick scheduled after the previous one settles. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = async () => {
      await this.tick().catch((err) => this.options.log.error(`scheduler tick failed: ${err?.stack ?? err}`));
      if (!this.stopped) this.timer = setTimeout(loop, this.tickMs);
    };
    void loop();
  }

  /** Stops ticking and waits for a tick in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current?.catch(() => {});
  }

  /** One pass over what is due now; returns what this instance fired. Ticks never overlap. */
  tick(): Promise<Fired[]> {
    return (this.current ??= this.fireDue().finally(() => (this.current = null)));
  }

  private async fireDue(): Promise<Fired[]> {
    const { log } = this.options;
    const fired: Fired[] = [];
    for (let round = 0; round < MAX_BATCHES_PER_TICK; round++) {
      const { done, claimed, failed } = await this.fire(this.now());
      fired.push(...done);
      // A full batch may mean more are due (rows other instances hold are theirs to fire); failures
      // would come back at once, so they wait for the next tick.
      if (claimed < this.batch || failed) break;
    }
    if (fired.length) log.info(`scheduler: started ${fired.length} thread${fired.length === 1 ? '' : 's'}`);
    return fired;
  }

  /** The next batch in one transaction; when that fails, one by one, so a schedule that cannot fire holds back no other. */
  private async fire(now: Date): Promise<{ done: Fired[]; claimed: number; failed: number }> {
    const { db, bus, log } = this.options;
    let ids: number[] = [];
    try {
      const done = await fireSchedules(db, bus, this.batch, now, (claimed) => (ids = claimed));
      return { done, claimed: ids.length, failed: 0 };
    } catch (err) {
      const what = ids.length > 1 ? `a batch of ${ids.length} schedules failed, firing them one by one`
        : ids.length ? `schedule ${ids[0]} failed to fire`
        : 'claiming due schedules failed';
      log.error(`scheduler: ${what}: ${(err as Error)?.message ?? err}`);
      if (ids.length <= 1) return { done: [], claimed: ids.length, failed: 1 };
    }
    const done: Fired[] = [];
    let failed = 0;
    for (const id of ids) {
      try {
        done.push(...(await fireSchedules(db, bus, [id], now)));
      } catch (err) {
        // Left due: the next tick tries again.
        failed++;
        log.error(`schedule ${id} failed to fire: ${(err as Error)?.stack ?? err}`);
      }
    }
    return { done, claimed: ids.length, failed };
  }
}
