// The server's one rate limiter: a sliding window of attempt times per key, in memory (one process); keys are e.g.
// 'ip:1.2.3.4'. Sign-in counts an attempt when it starts (take), before the slow part it guards, so that parallel
// attempts count too, and one that turns out fine gives its count back (refund); the mail intake takes one per
// message with the limit its settings say at the time. Memory stays bounded: a key keeps at most the times its
// limit needs (MAX_KEPT for counters without one), and keys whose window has passed are dropped as others come.
const MAX_KEPT = 10_000;

export class RateLimiter {
  private hits = new Map<string, number[]>();
  private lastSweep = 0;
  constructor(private limit: number, private windowMs: number, private now: () => number = Date.now) {}

  /** Seconds until the key may try again (its oldest counted attempt leaves the window), or 0 under the limit. */
  retryAfter(key: string, limit = this.limit): number {
    const times = this.recent(key);
    if (times.length < limit) return 0;
    return Math.max(1, Math.ceil((times[times.length - limit] + this.windowMs - this.now()) / 1000));
  }

  /** Counts an attempt unless the key is at its limit; returns the seconds to wait then, else 0. */
  take(key: string, limit = this.limit): number {
    const wait = this.retryAfter(key, limit);
    if (wait === 0) this.hit(key, limit);
    return wait;
  }

  /** Attempts counted in the key's window. */
  count(key: string): number {
    return this.recent(key).length;
  }

  hit(key: string, limit = this.limit): void {
    const now = this.now();
    this.sweep(now);
    const times = this.recent(key);
    times.push(now);
    this.hits.set(key, times.slice(-Math.min(limit, MAX_KEPT)));
  }

  /** Gives back the key's latest attempt. */
  refund(key: string): void {
    this.hits.get(key)?.pop();
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  private recent(key: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.hits.get(key) ?? []).filter((t) => t > since);
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, times] of this.hits) if (!times.some((t) => t > now - this.windowMs)) this.hits.delete(key);
  }
}
