// The local billing portal's test cards (server/billing/test-cards.ts) behave like Stripe's: its documented test
// numbers are taken, the ones Stripe declines are declined with Stripe's message, anything else is refused as real.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkTestCard } from '../../server/billing/test-cards.ts';

const now = new Date('2026-11-28T12:00:00Z');
const card = (number: string, cvc = '123') => checkTestCard({ number, exp_month: '4', exp_year: '2030', cvc }, now);

test("Stripe's standard decline card is declined with Stripe's words, and nothing is kept", () => {
  assert.equal(card('4000 0000 0000 0002'), { errors: { number: 'Your card was declined.' } });
  assert.equal(card('4000000000009995'), { errors: { number: 'Your card has insufficient funds.' } });
  assert.equal(card('4000000000000127'), { errors: { number: "Your card's security code is incorrect." } });
});

test("Stripe's test cards of every brand are taken, keeping brand, last 4 and expiry", () => {
  assert.equal(card('4012 8888 8888 1881'), { card: { brand: 'visa', last4: '1881', exp_month: 4, exp_year: 2030 } });
  assert.equal(card('5200828282828210'), { card: { brand: 'mastercard', last4: '8210', exp_month: 4, exp_year: 2030 } });
  assert.equal(card('371449635398431', '1234'), { card: { brand: 'amex', last4: '8431', exp_month: 4, exp_year: 2030 } });
  assert.equal(card('3566002020360505'), { card: { brand: 'jcb', last4: '0505', exp_month: 4, exp_year: 2030 } });
});

test('a number that is no test card is refused as test mode', () => {
  assert.equal(card('4111 1111 1111 1111'), { errors: { number: 'Test mode takes only test card numbers, such as 4242 4242 4242 4242.' } });
});

test.run();
