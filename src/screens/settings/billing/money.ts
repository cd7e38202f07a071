// Money and text rules of the billing page (spec §2, §5, §9): cents shown divided by 100 (whole
// numbers on the spend card), invoice descriptions cleaned, the spend-limit choice validated.
export const LIMIT_PRESETS_CENTS = [5000, 10000, 20000, 50000] as const;
export const INVALID_AMOUNT = 'Please enter a valid amount';

export function formatMoney(cents: number, currency = 'usd', options: { whole?: boolean } = {}): string {
  const digits = options.whole ? 0 : 2;
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase(), minimumFractionDigits: digits, maximumFractionDigits: digits })
      .format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(digits)} ${currency.toUpperCase()}`; // an unknown currency code
  }
}

/** '1,640 × Agent usage (at $0.01 per unit)' → 'Agent usage': what follows a '×', without a trailing parenthetical. */
export function cleanDescription(description: string): string {
  const times = description.indexOf('×');
  const after = times >= 0 ? description.slice(times + 1) : description;
  const cleaned = after.replace(/\s*\([^()]*\)\s*$/, '').trim();
  return cleaned || description.trim();
}

/** Percent of the limit spent, capped at 100; null without a limit. */
export function percentOfLimit(spentCents: number, limitCents: number): number | null {
  if (!(limitCents > 0)) return null;
  return Math.min(100, Math.max(0, Math.round((spentCents / limitCents) * 100)));
}

export type LimitChoice = { kind: 'preset'; cents: number } | { kind: 'none' } | { kind: 'custom'; text: string };

/** Cents to send for the dialog's choice, or the spec's message. Custom is whole units; unparsable counts as 0. */
export function limitCents(choice: LimitChoice): { cents: number } | { error: string } {
  let cents: number;
  if (choice.kind === 'none') return { cents: 0 };
  if (choice.kind === 'preset') cents = choice.cents;
  else {
    const units = Number.parseInt(choice.text, 10);
    cents = (Number.isNaN(units) ? 0 : units) * 100;
  }
  if (!Number.isSafeInteger(cents) || cents <= 0) return { error: INVALID_AMOUNT };
  return { cents };
}

/** The custom field takes digits only (spec §5: numeric text only). */
export const digitsOnly = (text: string) => text.replace(/\D+/g, '');

const periodDay = (seconds: number) =>
  new Date(seconds * 1000).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

/** 'Mar 1, 2026 – Mar 31, 2026' from a period whose end is the next one's start. */
export function formatPeriod(startSeconds: number, endSeconds: number): string {
  return `${periodDay(startSeconds)} – ${periodDay(endSeconds - 1)}`;
}
