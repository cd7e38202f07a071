// Relative times of the admin screens (spec §2 Admin Dashboard "Last Activity", Ops Dashboard "Age"):
// 'now' under a minute, then whole minutes, hours, days, months (30 days) and years (365 days): '5m ago',
// '3d ago', '2mo ago', '1y ago'. Unlike the thread list's calendar-day labels, this counts elapsed time.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export function relativeTime(value: string | number | Date, now: Date | number = Date.now()): string {
  const then = new Date(value).getTime();
  if (Number.isNaN(then)) return '-';
  // A clock slightly behind the server's must not show the future.
  const ms = Math.max(0, new Date(now).getTime() - then);
  if (ms < MINUTE) return 'now';
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)}m ago`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)}h ago`;
  const days = Math.floor(ms / DAY);
  if (days < 30) return `${days}d ago`;
  const months = Math.floor(days / 30);
  if (months < 12) return `${months}mo ago`;
  return `${Math.max(1, Math.floor(days / 365))}y ago`;
}
