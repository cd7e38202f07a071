// The local portal's card check. It is test mode, so only the well-known test card numbers are
// taken (a real number typed by mistake is refused, never stored); only brand, last 4 digits and
// expiry are kept, the CVC is checked for shape and dropped.
import type { PaymentMethod } from './customers.ts';

export const TEST_CARDS: Record<string, string> = {
  '4242424242424242': 'visa',
  '4000056655665556': 'visa',
  '5555555555554444': 'mastercard',
  '2223003122003222': 'mastercard',
  '378282246310005': 'amex',
  '6011111111111117': 'discover',
};

export type CardInput = { number: string; exp_month: string; exp_year: string; cvc: string };
export type CardErrors = Partial<Record<keyof CardInput, string>>;

export function checkTestCard(input: CardInput, now: Date = new Date()): { card: PaymentMethod } | { errors: CardErrors } {
  const errors: CardErrors = {};
  const number = input.number.replace(/[\s-]/g, '');
  const brand = TEST_CARDS[number];
  if (!/^\d{12,19}$/.test(number)) errors.number = 'Enter the card number.';
  else if (!brand) errors.number = 'Test mode takes only test card numbers, such as 4242 4242 4242 4242.';

  const month = Number(input.exp_month.trim());
  let year = Number(input.exp_year.trim());
  if (/^\d{2}$/.test(input.exp_year.trim())) year += 2000;
  if (!/^\d{1,2}$/.test(input.exp_month.trim()) || month < 1 || month > 12) errors.exp_month = 'Enter the month as a number from 1 to 12.';
  else if (!/^\d{2}(\d{2})?$/.test(input.exp_year.trim()) || year > now.getUTCFullYear() + 50) errors.exp_year = 'Enter the year, such as 2030.';
  else if (year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1) errors.exp_year = 'This card has expired.';

  const cvcLength = brand === 'amex' ? 4 : 3;
  if (!new RegExp(`^\\d{${cvcLength}}$`).test(input.cvc.trim())) errors.cvc = `Enter the ${cvcLength}-digit security code.`;

  if (Object.keys(errors).length) return { errors };
  return { card: { brand, last4: number.slice(-4), exp_month: month, exp_year: year } };
}
