// Fixed-window counters in memory: enough for one process; keys are e.g. 'ip:1.2.3.4'. An attempt is
// counted when it starts (take), before the slow part it guards, so that parallel attempts count too;
// one that turns out fine gives its count back (refund).
export class RateLimiter {
  private windows = new Map<string, { count: number; resetAt: number }>();
  constructor(private limit: number, private windowMs: number, private now: () => number = Date.now) {}

  /** Seconds until the key may try again, or 0 when it is under the limit. */
  retryAfter(key: string): number {
    const w = this.windows.get(key);
    if (!w || w.resetAt <= this.now()) return 0;
    return w.count >= this.limit ? Math.ceil((w.resetAt - this.now()) / 1000) : 0;
  }

  /** Counts an attempt unless the key is at its limit; returns the seconds to wait then, else 0. */
  take(key: string): number {
    const wait = this.retryAfter(key);
    if (wait === 0) this.hit(key);
    return wait;
  }

  /** Attempts counted in the key's current window. */
  count(key: string): number {
    const w = this.windows.get(key);
    return w && w.resetAt > this.now() ? w.count : 0;
  }

  hit(key: string): void {
    const now = this.now();
    const w = this.windows.get(key);
    if (!w || w.resetAt <= now) this.windows.set(key, { count: 1, resetAt: now + this.windowMs });
    else w.count++;
    if (this.windows.size > 10_000) this.sweep(now);
  }

  /** Gives back one attempt taken in the current window. */
  refund(key: string): void {
    const w = this.windows.get(key);
    if (w && w.resetAt > this.now() && w.count > 0) w.count--;
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}
