// The loop both database queues share (webhook deliveries, push notifications): woken when something was queued,
// it claims what is due while fewer than `parallel` sends are in flight (each send's end looks again), and otherwise
// sleeps until the next item falls due, at most IDLE_LOOK_MS (another instance may queue one without waking this).
// What a claim takes, and how an item is sent and settled, is the queue's own.
const IDLE_LOOK_MS = 30_000;

export type ClaimLoopParts<T> = {
  /** Claims at most `limit` due items (SKIP LOCKED, with a lease). */
  claim(limit: number): Promise<T[]>;
  /** Sends and settles one claimed item. */
  deliver(item: T): Promise<void>;
  /** Milliseconds until the next pending item is due; null when none is pending. */
  nextDueMs(): Promise<number | null>;
  /** Names the queue in the log's lines. */
  label: string;
  log: { error: (m: string) => void };
  parallel: number;
};

export class ClaimLoop<T> {
  private timer: NodeJS.Timeout | null = null;
  private looking: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private sending = new Set<Promise<void>>();

  constructor(private p: ClaimLoopParts<T>) {}

  /** Looks for due items now (once more after the current look, if one runs). */
  wake(): void {
    if (this.stopped) return;
    if (this.looking) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.looking = this.look().catch((err) => this.p.log.error(`${this.p.label}: ${err.message}`)).finally(() => {
      this.looking = null;
      if (this.again) {
        this.again = false;
        this.wake();
      } else if (!this.sending.size) void this.planNextLook(); // else a send's end looks again
    });
  }

  /** Stops looking and waits for the sends in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.looking;
    await Promise.all(this.sending);
  }

  private async look(): Promise<void> {
    while (!this.stopped && this.sending.size < this.p.parallel) {
      const claimed = await this.p.claim(this.p.parallel - this.sending.size);
      for (const item of claimed) {
        const sending: Promise<void> = this.p.deliver(item)
          .catch((err) => this.p.log.error(`${this.p.label}: a claimed item was not settled: ${err.message}`))
          .finally(() => {
            this.sending.delete(sending);
            this.wake();
          });
        this.sending.add(sending);
      }
      if (!claimed.length) return;
    }
  }

  private async planNextLook(): Promise<void> {
    if (this.stopped) return;
    const due = await this.p.nextDueMs().catch(() => null);
    if (this.stopped || this.looking) return;
    const ms = due === null ? IDLE_LOOK_MS : Math.max(50, Math.min(IDLE_LOOK_MS, due));
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), ms).unref();
  }
}
