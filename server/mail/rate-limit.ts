// Counts events per key over a sliding window (this instance only): the intake's per-address and
// per-sender limits. Memory stays bounded: a key keeps at most `limit` times, and keys whose
// window has passed are dropped as new ones come.

export class SlidingWindow {
  private hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(private windowMs: number, private now: () => number = Date.now) {}

  /** Records one event for key unless `limit` already happened within the window; true when recorded. */
  take(key: string, limit: number): boolean {
    const now = this.now();
    this.sweep(now);
    const times = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (times.length >= limit) {
      this.hits.set(key, times);
      return false;
    }
    times.push(now);
    this.hits.set(key, times);
    return true;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, times] of this.hits) if (!times.some((t) => t > now - this.windowMs)) this.hits.delete(key);
  }
}
