// The local portal's card check. It is test mode, so only Stripe's documented test card numbers are
// taken (a real number typed by mistake is refused, never stored), and the ones Stripe declines are
// declined with Stripe's own message; only brand, last 4 digits and expiry are kept, the CVC is
// checked for shape and dropped.
import type { PaymentMethod } from './customers.ts';

/** Stripe's test cards that succeed, by brand. */
export const TEST_CARDS: Record<string, string> = {
  '4242424242424242': 'visa',
  '4012888888881881': 'visa',
  '4000056655665556': 'visa',
  '5555555555554444': 'mastercard',
  '2223003122003222': 'mastercard',
  '5200828282828210': 'mastercard',
  '5105105105105100': 'mastercard',
  '378282246310005': 'amex',
  '371449635398431': 'amex',
  '6011111111111117': 'discover',
  '6011000990139424': 'discover',
  '3056930009020004': 'diners',
  '36227206271667': 'diners',
  '3566002020360505': 'jcb',
  '6200000000000005': 'unionpay',
};

/** Stripe's test cards that are declined, with the message Stripe gives for each. */
export const DECLINED_TEST_CARDS: Record<string, string> = {
  '4000000000000002': 'Your card was declined.',
  '4000000000009995': 'Your card has insufficient funds.',
  '4000000000009987': 'Your card was declined.',
  '4000000000009979': 'Your card was declined.',
  '4100000000000019': 'Your card was declined.',
  '4000000000000069': 'Your card has expired.',
  '4000000000000127': "Your card's security code is incorrect.",
  '4000000000000119': 'An error occurred while processing your card. Try again in a little bit.',
  '4242424242424241': 'Your card number is incorrect.',
};

export type CardInput = { number: string; exp_month: string; exp_year: string; cvc: string };
export type CardErrors = Partial<Record<keyof CardInput, string>>;

export function checkTestCard(input: CardInput, now: Date = new Date()): { card: PaymentMethod } | { errors: CardErrors } {
  const errors: CardErrors = {};
  const number = input.number.replace(/[\s-]/g, '');
  const brand = TEST_CARDS[number];
  if (!/^\d{12,19}$/.test(number)) errors.number = 'Enter the card number.';
  else if (DECLINED_TEST_CARDS[number]) errors.number = DECLINED_TEST_CARDS[number];
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
