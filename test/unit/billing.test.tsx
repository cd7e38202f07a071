import { cleanup, click, dialogs, FakeApi, json, renderScreen, settle, text, type, USER } from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { UsageDetail } from '../../src/lib/billing-api.ts';
import BillingScreen from '../../src/screens/settings/billing/billing-screen.tsx';
import { BANNER_TEXTS, BillingBanner } from '../../src/screens/settings/billing/billing-banner.tsx';
import { SpendLimitDialog } from '../../src/screens/settings/billing/spend-limit-dialog.tsx';
import {
  cleanDescription, digitsOnly, formatMoney, formatPeriod, INVALID_AMOUNT, limitCents, percentOfLimit,
} from '../../src/screens/settings/billing/money.ts';

// --- rules

const rules = suite('billing: money and text rules');

rules('cents are shown divided by 100, whole on the spend card', () => {
  assert.is(formatMoney(123456), '$1,234.56');
  assert.is(formatMoney(5), '$0.05');
  assert.is(formatMoney(-500), '-$5.00');
  assert.is(formatMoney(500, 'usd', { whole: true }), '$5');
  assert.is(formatMoney(1049, 'usd', { whole: true }), '$10');
  assert.is(formatMoney(1050, 'eur'), '€10.50');
  assert.is(formatMoney(100, 'x'), '1.00 X', 'a currency Intl does not know');
});

rules('descriptions keep what follows a multiplication sign, without a trailing parenthetical', () => {
  assert.is(cleanDescription('1,640 × Agent usage (at $0.01 per unit)'), 'Agent usage');
  assert.is(cleanDescription('Model calls by your agents'), 'Model calls by your agents');
  assert.is(cleanDescription('Seat (Tier 1)'), 'Seat');
  assert.is(cleanDescription('Usage (beta) plan (May)'), 'Usage (beta) plan');
  assert.is(cleanDescription('(only a note)'), '(only a note)', 'never cleaned to nothing');
});

rules('the progress is the percent of the limit, capped at 100; none without a limit', () => {
  assert.is(percentOfLimit(2500, 10000), 25);
  assert.is(percentOfLimit(15000, 10000), 100);
  assert.is(percentOfLimit(500, 0), null);
});

rules('the limit: presets and custom whole units as cents, No limit as 0, the rest refused', () => {
  assert.equal(limitCents({ kind: 'preset', cents: 5000 }), { cents: 5000 });
  assert.equal(limitCents({ kind: 'none' }), { cents: 0 });
  assert.equal(limitCents({ kind: 'custom', text: '75' }), { cents: 7500 });
  for (const t of ['', '0', 'abc', '-5']) assert.equal(limitCents({ kind: 'custom', text: t }), { error: INVALID_AMOUNT }, t);
  assert.is(INVALID_AMOUNT, 'Please enter a valid amount');
  assert.is(digitsOnly('7a5.5 '), '755');
});

rules('the period reads from its first to its last day', () => {
  assert.is(formatPeriod(Date.UTC(2026, 2, 1) / 1000, Date.UTC(2026, 3, 1) / 1000), 'Mar 1, 2026 – Mar 31, 2026');
});

rules.run();

// --- the page

const USAGE: UsageDetail = {
  total: 1234, limit_cents: 10000, currency: 'usd', applied_credits: 500, amount_remaining: 734, current_credits_available: 0,
  period_start: Date.UTC(2026, 2, 1) / 1000, period_end: Date.UTC(2026, 3, 1) / 1000,
  lines: [
    { description: '1,234 × Agent usage (at $0.01 per unit)', amount: 1234, quantity: 1234, unit_amount: 1, coupon_nominal: null },
    { description: 'Seat (free)', amount: 0, quantity: 1, unit_amount: 0, coupon_nominal: null },
    { description: 'Launch', amount: -200, quantity: null, unit_amount: null, coupon_nominal: '20% off' },
  ],
  days: [{ day: '2026-03-02', cost: 12.34, count: 40 }],
};
const CARD = { brand: 'visa', last4: '4242', exp_month: 4, exp_year: 2031 };
const CUSTOMER = { name: 'Ada', email: 'ada@example.test', address_line1: '12 Main St', postal_code: '10115', city: 'Berlin', country: 'DE' };

function billingApi(o: { usage?: unknown; card?: unknown; customer?: unknown } = {}) {
  return new FakeApi(USER)
    .on('GET /api/billing/usage-detail', () => o.usage ?? USAGE)
    .on('GET /api/billing/payment-method', () => o.card ?? CARD)
    .on('GET /api/billing/customer', () => o.customer ?? CUSTOMER);
}

function card(name: string): HTMLElement {
  const found = [...document.querySelectorAll('section')].find((el) => document.getElementById(el.getAttribute('aria-labelledby') ?? '')?.textContent === name);
  if (!found) throw new Error(`no card ${name}`);
  return found as HTMLElement;
}
const lines = () => [...card('Current Spend').querySelectorAll('.usage-line')].map((li) => li.textContent);

const page = suite('billing: the page');
const saved = { open: globalThis.open, error: console.error };
let opened: string[] = [];
let logged: unknown[][] = [];
page.before.each(() => {
  opened = [];
  logged = [];
  globalThis.open = ((url: string) => (opened.push(url), null)) as typeof open;
  console.error = (...args: unknown[]) => void logged.push(args);
});
page.after.each(async () => {
  await cleanup();
  Object.assign(globalThis, { open: saved.open });
  console.error = saved.error;
});

page('with a payment method: period, spent of the limit, progress, lines, credits and total due', async () => {
  await renderScreen(billingApi(), <BillingScreen />);
  const spend = card('Current Spend');
  assert.match(spend.textContent!, 'Mar 1, 2026 – Mar 31, 2026');
  assert.is(spend.querySelector('.spend-amount')!.textContent, '$12 / $100');
  assert.is(spend.querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow'), '12');
  assert.not.match(spend.textContent!, 'Credits remaining', 'no line when no credits are left');
  assert.equal(lines(), [
    'Agent usageQty 1,234 · $0.01 each$12.34',
    'Discount (Launch – 20% off)-$2.00',
    'Credits applied-$5.00',
    'Total due$7.34',
  ]);
  assert.ok(spend.querySelector('svg.day-chart-svg'), 'the daily spend chart');
  assert.equal(dialogs.alerts, []);
  assert.is(document.querySelector('.billing-banner'), null, 'all three banner flags are false here');

  const pm = card('Payment Method');
  assert.match(pm.textContent!, 'Visa•••• 4242(exp 04/31)');
  assert.ok(pm.querySelector('button[title="Update card"]'));
  const info = card('Billing Information');
  assert.equal([...info.querySelectorAll('dd')].map((d) => d.textContent), ['Ada', 'ada@example.test', '12 Main St10115 BerlinDE']);
});

page('over the limit the bar stops at 100; without a limit it reads ∞ and shows the credits left', async () => {
  await renderScreen(billingApi({ usage: { ...USAGE, total: 25000 } }), <BillingScreen />);
  assert.is(card('Current Spend').querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow'), '100');
  await cleanup();
  await renderScreen(billingApi({ usage: { ...USAGE, limit_cents: 0, current_credits_available: 250, applied_credits: 0 } }), <BillingScreen />);
  const spend = card('Current Spend');
  assert.is(spend.querySelector('.spend-amount')!.textContent, '$12 / ∞');
  assert.match(spend.textContent!, 'Credits remaining: $3');
  assert.not.match(spend.textContent!, 'Credits applied');
});

page('without a payment method: test credits, red with a call to add a card once used up', async () => {
  const usage = { ...USAGE, limit_cents: 0, current_credits_available: 380, lines: [], applied_credits: 0 };
  await renderScreen(billingApi({ usage, card: {} }), <BillingScreen />);
  let spend = card('Current Spend');
  assert.match(spend.textContent!, 'Test credits remaining$4');
  assert.match(spend.textContent!, 'You can transition to usage-based plan any time by adding a payment method. Your test credits will still be available.');
  assert.not.match(spend.textContent!, 'Edit limit');
  assert.not.match(spend.textContent!, 'Total due');
  assert.match(card('Payment Method').textContent!, 'No payment method set.Add card');
  await cleanup();

  await renderScreen(billingApi({ usage: { ...usage, current_credits_available: -3 }, card: {} }), <BillingScreen />);
  spend = card('Current Spend');
  assert.ok(spend.querySelector('.spend-amount')!.hasAttribute('data-exhausted'));
  const warning = [...spend.querySelectorAll('p')].find((p) => p.textContent === 'To continue using the app, please add a payment method.')!;
  assert.ok(warning.classList.contains('error-text'));
});

page('failures: no usage hides the card; card and billing info are logged and shown as none', async () => {
  const api = billingApi()
    .on('GET /api/billing/usage-detail', () => json({ detail: 'down' }, 500))
    .on('GET /api/billing/payment-method', () => json({ detail: 'Stripe failed: down' }, 502))
    .on('GET /api/billing/customer', () => json({ detail: 'Stripe failed: down' }, 502));
  await renderScreen(api, <BillingScreen />);
  await settle(4);
  // One retry each (spec §9), then the failure shows.
  await new Promise((r) => setTimeout(r, 1100));
  await settle();
  assert.is(api.calls.filter((c) => c.path === '/api/billing/usage-detail').length, 2);
  assert.not.match(text(), 'Current Spend');
  assert.match(card('Payment Method').textContent!, 'No payment method set.');
  assert.equal([...card('Billing Information').querySelectorAll('dd')].map((d) => d.textContent), ['—', '—', '—']);
  assert.ok(logged.some((args) => String(args[0]).includes('payment method')));
  assert.ok(logged.some((args) => String(args[0]).includes('billing information')));
});

page('Add card opens the portal in a new tab; a failure alerts', async () => {
  const api = billingApi({ card: {} }).on('POST /api/billing/portal-session', () => ({ url: '/api/billing/portal?token=abc' }));
  await renderScreen(api, <BillingScreen />);
  await click([...card('Payment Method').querySelectorAll('button')].find((b) => b.textContent === 'Add card')!);
  await settle();
  assert.equal(opened, ['/api/billing/portal?token=abc']);
  assert.equal(api.calls.find((c) => c.path === '/api/billing/portal-session')!.body, { flow_type: 'payment_method_update' });
  api.on('POST /api/billing/portal-session', () => json({ detail: 'nope' }, 502));
  await click([...card('Payment Method').querySelectorAll('button')].find((b) => b.textContent === 'Add card')!);
  await settle();
  assert.equal(dialogs.alerts, ['Failed to open Stripe portal']);
});

page('Edit billing information saves through PATCH and shows the result', async () => {
  const api = billingApi({ customer: { ...CUSTOMER, name: '', address_line1: '', postal_code: '', city: '', country: '' } })
    .on('PATCH /api/billing/customer', (c) => ({ ...CUSTOMER, ...(c.body as object) }));
  await renderScreen(api, <BillingScreen />);
  assert.equal([...card('Billing Information').querySelectorAll('dd')].map((d) => d.textContent), ['—', 'ada@example.test', '—']);
  await click(card('Billing Information').querySelector('button[title="Edit billing information"]')!);
  const name = [...document.querySelectorAll<HTMLInputElement>('[role="dialog"] input')][0];
  await type(name, 'Grace');
  await click([...document.querySelectorAll('[role="dialog"] button')].find((b) => b.textContent === 'Save')!);
  await settle();
  assert.is(api.calls.find((c) => c.method === 'PATCH')!.body && (api.calls.find((c) => c.method === 'PATCH')!.body as any).name, 'Grace');
  assert.is(document.querySelector('[role="dialog"]'), null);
  assert.is(card('Billing Information').querySelector('dd')!.textContent, 'Grace');
});

page.run();

// --- the dialog and the banner

const dialog = suite('billing: Set spend limit dialog');
dialog.after.each(cleanup);

function dialogApi(status = 200) {
  return new FakeApi(USER).on('PATCH /api/users/me/limit', (c) => (status === 200
    ? { ...USER, monthly_spend_limit_cents: (c.body as any).limit_cents }
    : json({ detail: 'no' }, status)));
}
const radio = (label: string) => [...document.querySelectorAll('label.limit-option')].find((l) => l.textContent === label)!.querySelector('input')!;
const save = () => click([...document.querySelectorAll('[role="dialog"] button')].find((b) => b.textContent === 'Save')!);
const sent = (api: FakeApi) => api.calls.filter((c) => c.method === 'PATCH').map((c) => (c.body as any).limit_cents);

async function openDialog(api: FakeApi, currentCents: number) {
  const env = { reloads: 0, reload() { env.reloads++; }, alert: (m: string) => void dialogs.alerts.push(m) };
  await renderScreen(api, <SpendLimitDialog currentCents={currentCents} currency="usd" onClose={() => {}} env={env} />);
  return env;
}

dialog('offers the presets, No limit and Custom; starts on the current limit', async () => {
  await openDialog(dialogApi(), 20000);
  assert.equal([...document.querySelectorAll('label.limit-option')].map((l) => l.textContent), ['$50', '$100', '$200', '$500', 'No limit', 'Custom']);
  assert.ok(radio('$200').checked);
  assert.match(document.querySelector('[role="dialog"]')!.textContent!, 'Set spend limit');
  await cleanup();
  await openDialog(dialogApi(), 1200);
  assert.ok(radio('Custom').checked);
  assert.is((document.querySelector('.limit-custom input') as HTMLInputElement).value, '12');
});

dialog('a preset is sent as cents and the page reloads', async () => {
  const api = dialogApi();
  const env = await openDialog(api, 0);
  assert.ok(radio('No limit').checked);
  await click(radio('$500'));
  await save();
  await settle();
  assert.equal(sent(api), [50000]);
  assert.is(env.reloads, 1);
});

dialog('custom takes digits only, whole units times 100; No limit sends 0', async () => {
  const api = dialogApi();
  const env = await openDialog(api, 5000);
  await click(radio('Custom'));
  const input = document.querySelector('.limit-custom input') as HTMLInputElement;
  await type(input, '12.5x');
  assert.is(input.value, '125');
  await save();
  await settle();
  assert.equal(sent(api), [12500]);
  assert.is(env.reloads, 1);
  await cleanup();
  const again = await openDialog(api, 12500);
  await click(radio('No limit'));
  await save();
  await settle();
  assert.equal(sent(api), [12500, 0]);
  assert.is(again.reloads, 1);
});

dialog('an empty or zero custom amount alerts and sends nothing; a failed save alerts', async () => {
  const api = dialogApi(422);
  const env = await openDialog(api, 5000);
  await click(radio('Custom'));
  await save();
  await type(document.querySelector('.limit-custom input') as HTMLInputElement, '0');
  await save();
  assert.equal(dialogs.alerts, ['Please enter a valid amount', 'Please enter a valid amount']);
  assert.equal(sent(api), []);
  await click(radio('$50'));
  await save();
  await settle();
  assert.equal(dialogs.alerts.at(-1), 'Failed to update limit');
  assert.is(env.reloads, 0);
});

dialog.run();

const banner = suite('billing: banner');
banner.after.each(cleanup);

banner('shows the text of the first flag that is set, nothing when none is', async () => {
  const api = new FakeApi(USER);
  await renderScreen(api, <BillingBanner accountOnHold={false} limitReached={false} approachingLimit={false} />);
  assert.is(document.querySelector('.billing-banner'), null);
  await cleanup();
  await renderScreen(api, <BillingBanner accountOnHold={false} limitReached approachingLimit />);
  assert.is(document.querySelector('.billing-banner')!.textContent, 'You have reached your monthly spending limit.');
  await cleanup();
  await renderScreen(api, <BillingBanner accountOnHold limitReached={false} approachingLimit={false} />);
  assert.is(document.querySelector('.billing-banner')!.textContent, 'Payment failed – please update your card to re-enable paid features.');
  assert.is(BANNER_TEXTS.approachingLimit, 'You are approaching your monthly spending limit.');
});

banner.run();
