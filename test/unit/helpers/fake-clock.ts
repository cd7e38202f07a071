// Timers that only move when a test says so, and an environment (src/lib/environment.ts) built on
// them with visibility and focus the test switches by hand: no real time passes and `document` is untouched.
import { act } from 'react';
import type { Environment } from '../../../src/lib/environment.ts';

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

export class FakeClock {
  /** Not 0: a cache entry stamped 0 means "stale" and must stay older than any real moment. */
  now = 1_000_000;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private lastId = 0;
  setTimeout = (fn: () => void, ms: number): unknown => {
    this.timers.set(++this.lastId, { at: this.now + ms, fn });
    return this.lastId;
  };
  clearTimeout = (id: unknown): void => {
    this.timers.delete(id as number);
  };
  get pending(): number {
    return this.timers.size;
  }
  /** Advance by ms, running due timers in order and letting promise callbacks run after each. */
  async tick(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
      await settle();
    }
    this.now = end;
    await settle();
  }
}

export function fakeResourceEnvironment() {
  const clock = new FakeClock();
  let visible = true;
  const focusListeners = new Set<() => void>();
  const visibilityListeners = new Set<() => void>();
  const subscribe = (set: Set<() => void>) => (callback: () => void) => {
    set.add(callback);
    return () => void set.delete(callback);
  };
  const env: Environment = {
    isVisible: () => visible,
    onFocus: subscribe(focusListeners),
    onVisibilityChange: subscribe(visibilityListeners),
    setTimeout: clock.setTimeout,
    clearTimeout: clock.clearTimeout,
    now: () => clock.now,
  };
  return {
    env,
    clock,
    /** Advance the clock inside act(), so timers, fetches and re-renders all land before the assertions. */
    tick: (ms: number) => act(() => clock.tick(ms)),
    async setVisible(value: boolean) {
      visible = value;
      // A visibilitychange reaches both kinds of listener, as in the browser.
      await act(async () => {
        for (const fn of [...visibilityListeners, ...focusListeners]) fn();
      });
    },
    async focus() {
      await act(async () => {
        for (const fn of [...focusListeners]) fn();
      });
    },
  };
}
