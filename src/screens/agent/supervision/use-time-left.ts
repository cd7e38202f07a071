// Milliseconds until a deadline, re-rendering once a second until it passes. Time comes from the injectable
// environment (src/lib/environment.ts), so tests move a fake clock instead of waiting.
import { useEffect, useState } from 'react';
import { env } from '../../../lib/environment.ts';

const TICK_MS = 1000;

export function useTimeLeft(deadline: string): number {
  const end = new Date(deadline).getTime();
  const [now, setNow] = useState(() => env.now());
  useEffect(() => {
    if (!(end > now)) return;
    const timer = env.setTimeout(() => setNow(env.now()), TICK_MS);
    return () => env.clearTimeout(timer);
  }, [end, now]);
  return Number.isNaN(end) ? 0 : Math.max(0, end - now);
}

/** '9:05' for minutes and seconds left, rounded up: '0:00' only once the time is up. */
export function formatTimeLeft(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
