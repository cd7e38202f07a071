// Display rules of the reports screens (spec §2): descriptions cut to their first characters, the
// completion rate as a rounded percent, '-' for what is missing.
export const REVIEW_DESCRIPTION_CHARS = 120;
export const LIST_DESCRIPTION_CHARS = 160;

/** The first `max` characters (code points, so an emoji is never split); '-' when empty. */
export function cut(text: string | null | undefined, max: number): string {
  if (!text) return '-';
  const chars = Array.from(text);
  return chars.length > max ? chars.slice(0, max).join('') : text;
}

/** 0.834 → '83%'; null → '-'. */
export function percent(rate: number | null | undefined): string {
  return typeof rate === 'number' && Number.isFinite(rate) ? `${Math.round(rate * 100)}%` : '-';
}
