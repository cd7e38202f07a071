// Age labels for the thread list (spec §2 "Thread switcher bar"), counted in local calendar days:
// Today, Yesterday, {n}d ago under 7 days, {n}w ago under 5 weeks, {n}mo ago under 12 months, else {n}y ago.

const DAY_MS = 24 * 60 * 60 * 1000;

function startOfDay(date: Date): number {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/** Whole calendar months from `then` to `now` (a month counts once its day of the month is reached). */
function monthsBetween(then: Date, now: Date): number {
  const months = (now.getFullYear() - then.getFullYear()) * 12 + now.getMonth() - then.getMonth();
  return now.getDate() < then.getDate() ? months - 1 : months;
}

export function ageLabel(value: string | number | Date, now: Date = new Date()): string {
  const then = new Date(value);
  if (Number.isNaN(then.getTime())) return 'Today';
  // Rounded: a daylight-saving change makes one local day 23 or 25 hours long.
  const days = Math.round((startOfDay(now) - startOfDay(then)) / DAY_MS);
  if (days <= 0) return 'Today'; // a clock slightly behind the server's must not show the future
  if (days === 1) return 'Yesterday';
  if (days < 7) return `${days}d ago`;
  if (days < 35) return `${Math.floor(days / 7)}w ago`;
  const months = Math.max(1, monthsBetween(then, now));
  if (months < 12) return `${months}mo ago`;
  return `${Math.floor(months / 12)}y ago`;
}
