// /api/billing with the local provider: usage from traces in the UTC month, test credits, the
// test-mode portal (driven like a browser submits its forms), billing details, plans and the limit.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { monthlyPeriod } from '../../server/billing/usage.ts';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';

async function setup() {
  const { db, url } = { ...(await testServer()).parts, url: (await testServer()).url };
  const user = await newUser('billing');
  const get = (path: string, token = user.token) => call(path, { token });
  const send = (method: string, path: string, body: unknown, token = user.token) => call(path, { method, token, body });
  return { db, url, user, get, send };
}

/** A trace of `usd` for the user, `secondsFromMonthStart` away from the start of this UTC month. */
async function trace(db: any, ownerId: number, usd: number, secondsFromMonthStart: number, threadName = 'Main: work') {
  await db.query(
    `INSERT INTO llm_traces (owner_id, thread_name, model, estimated_cost, created_at)
     VALUES ($1, $2, 'm', $3, date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + make_interval(secs => $4))`,
    [ownerId, threadName, usd, secondsFromMonthStart]);
}

/** Reads the portal page's hidden token (every page carries a fresh one). */
const tokenIn = (html: string) => /name="token" value="([^"]+)"/.exec(html)![1];

async function postForm(base: string, fields: Record<string, string>) {
  const res = await fetch(`${base}/api/billing/portal`, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields), redirect: 'manual',
  });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

const usage = suite('billing: usage');

usage('the period is the UTC calendar month, also across a year end', () => {
  const p = monthlyPeriod(new Date('2025-12-31T23:59:59Z'));
  assert.is(p.start.toISOString(), '2025-12-01T00:00:00.000Z');
  assert.is(p.end.toISOString(), '2026-01-01T00:00:00.000Z');
  assert.is(monthlyPeriod(new Date('2026-01-01T00:00:00Z')).start.toISOString(), '2026-01-01T00:00:00.000Z');
});

usage('a new user has test credits and nothing spent', async () => {
  const s = await setup();
  const res = await s.get('/api/billing/usage-detail');
  assert.is(res.status, 200);
  const period = monthlyPeriod();
  assert.equal(
    { ...res.body, days: undefined },
    {
      total: 0, limit_cents: 0, currency: 'usd', lines: [], applied_credits: 0, amount_remaining: 0, current_credits_available: 500,
      period_start: period.start.getTime() / 1000, period_end: period.end.getTime() / 1000, has_payment_method: false, days: undefined,
    });
  assert.equal(res.body.days, []);
  assert.equal((await s.get('/api/billing/payment-method')).body, {});
  assert.equal((await s.get('/api/billing/customer')).body, { name: '', email: s.user.email, address_line1: '', postal_code: '', city: '', country: '' });
});

usage('usage counts the traces of this month only; earlier months used the credits first', async () => {
  const s = await setup();
  await trace(s.db, s.user.id, 1, -1); // last second of last month: $1 of the credits
  await trace(s.db, s.user.id, 0.5, 1);
  await trace(s.db, s.user.id, 0.25, 2, 'Sub: look it up');
  await trace(s.db, s.user.id, 0.0001, 3);
  const other = await newUser('neighbour');
  await trace(s.db, other.id, 9, 1);
  const { body } = await s.get('/api/billing/usage-detail');
  assert.is(body.total, 75);
  assert.equal(body.lines, [
    { description: 'Model calls by your agents', amount: 50, quantity: 2, unit_amount: null, coupon_nominal: null },
    { description: 'Model calls by sub-agents', amount: 25, quantity: 1, unit_amount: null, coupon_nominal: null },
  ]);
  assert.is(body.current_credits_available, 500 - 100 - 75);
  assert.is(body.applied_credits, 75);
  assert.is(body.amount_remaining, 0);
  assert.equal(body.days.map((d: any) => [d.day, Math.round(d.cost * 10000) / 10000, d.count]),
    [[monthlyPeriod().start.toISOString().slice(0, 10), 0.7501, 3]]);
});

const portal = suite('billing: local portal');

portal('a card added in the portal moves the user to usage-based billing', async () => {
  const s = await setup();
  await trace(s.db, s.user.id, 6, 1); // $6: more than the $5 of credits
  const session = await s.send('POST', '/api/billing/portal-session', { flow_type: 'payment_method_update' });
  assert.is(session.status, 200);
  assert.match(session.body.url, /^\/api\/billing\/portal\?token=[\w-]{43}&flow=payment_method_update$/);

  const page = await fetch(s.url + session.body.url);
  const html = await page.text();
  assert.is(page.status, 200);
  assert.match(html, 'Test mode');
  assert.match(html, `Signed in as ${s.user.email}`);
  assert.match(html, 'No payment method set.');
  assert.match(page.headers.get('content-security-policy')!, "script-src 'self'");
  assert.is(page.headers.get('referrer-policy'), 'no-referrer');
  assert.not.match(html, /<script>|<script(?![^>]*\bsrc=)|style=/, 'no inline script or style');
  // The link works once: a second visit (or a leaked URL) finds it spent.
  const again = await fetch(s.url + session.body.url);
  assert.is(again.status, 403);
  assert.match(await again.text(), 'This link has expired or was already used.');

  const year = String(new Date().getUTCFullYear() + 3);
  const bad = await postForm(s.url, { token: tokenIn(html), action: 'card', number: '4111 1111 1111 1111', exp_month: '13', exp_year: year, cvc: '12' });
  assert.is(bad.status, 422);
  assert.match(bad.html, 'Test mode takes only test card numbers');
  assert.match(bad.html, 'Enter the month as a number from 1 to 12.');
  assert.match(bad.html, 'Enter the 3-digit security code.');
  assert.equal((await s.get('/api/billing/payment-method')).body, {});

  const saved = await postForm(s.url, { token: tokenIn(bad.html), action: 'card', number: '4242 4242 4242 4242', exp_month: '4', exp_year: year, cvc: '123' });
  assert.is(saved.status, 200);
  assert.match(saved.html, 'Card saved.');
  assert.match(saved.html, `Visa •••• 4242 (exp 04/${year.slice(2)})`);
  assert.not.match(saved.html, '4242424242424242');
  // A spent token posts nothing.
  const replay = await postForm(s.url, { token: tokenIn(bad.html), action: 'card', number: '5555555555554444', exp_month: '4', exp_year: year, cvc: '123' });
  assert.is(replay.status, 403);

  assert.equal((await s.get('/api/billing/payment-method')).body, { brand: 'visa', last4: '4242', exp_month: 4, exp_year: Number(year) });
  const detail = (await s.get('/api/billing/usage-detail')).body;
  assert.is(detail.has_payment_method, true);
  assert.is(detail.total, 600);
  assert.is(detail.applied_credits, 500);
  assert.is(detail.amount_remaining, 100);
  assert.is(detail.current_credits_available, 0);

  const details = await postForm(s.url, {
    token: tokenIn(saved.html), action: 'details', name: 'Ada Lovelace', email: 'ada@example.test',
    address_line1: '12 Analytical St', postal_code: '10115', city: 'Berlin', country: 'de',
  });
  assert.is(details.status, 200);
  assert.match(details.html, 'Billing details saved.');
  assert.equal((await s.get('/api/billing/customer')).body, {
    name: 'Ada Lovelace', email: 'ada@example.test', address_line1: '12 Analytical St', postal_code: '10115', city: 'Berlin', country: 'DE',
  });
  const wrong = await postForm(s.url, {
    token: tokenIn(details.html), action: 'details', name: 'X', email: 'not-an-address',
    address_line1: '', postal_code: '', city: '', country: 'Germany',
  });
  assert.is(wrong.status, 422);
  assert.match(wrong.html, 'country must be a two-letter country code');
  assert.is((await s.get('/api/billing/customer')).body.name, 'Ada Lovelace');
});

portal('forms without a token, or not form-encoded, are refused', async () => {
  const s = await setup();
  assert.is((await postForm(s.url, { action: 'card', number: '4242424242424242' })).status, 403);
  const json = await fetch(`${s.url}/api/billing/portal`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  assert.is(json.status, 415);
  assert.is((await fetch(`${s.url}/api/billing/portal?token=nope`)).status, 403);
  assert.is((await s.send('POST', '/api/billing/portal-session', { flow_type: 'subscription_cancel' })).status, 422);
  assert.is((await call('/api/billing/portal-session', { method: 'POST', body: {} })).status, 401);
});

const settings = suite('billing: details, plans, limit');

settings('PATCH /billing/customer saves valid fields and refuses bad ones whole', async () => {
  const s = await setup();
  const ok = await s.send('PATCH', '/api/billing/customer', { name: '  Grace  ', city: 'Arlington', country: 'us' });
  assert.is(ok.status, 200);
  assert.equal(ok.body, { name: 'Grace', email: s.user.email, address_line1: '', postal_code: '', city: 'Arlington', country: 'US' });
  const bad = await s.send('PATCH', '/api/billing/customer', { name: 'Changed', email: 'nope', postal_code: 12345 });
  assert.is(bad.status, 422);
  assert.equal(bad.body.detail.map((d: any) => d.loc[1]).sort(), ['email', 'postal_code']);
  assert.is((await s.get('/api/billing/customer')).body.name, 'Grace');
  assert.is((await s.send('PATCH', '/api/billing/customer', [1, 2])).status, 422);
});

settings('prices and change-price act on the caller only', async () => {
  const s = await setup();
  const prices = (await s.get('/api/billing/prices')).body;
  assert.equal(prices.map((p: any) => p.price_id), ['usage']);
  const other = await newUser('else');
  assert.is((await s.send('POST', '/api/billing/change-price', { user_id: other.id, price_id: 'usage' })).status, 403);
  assert.is((await s.send('POST', '/api/billing/change-price', { user_id: s.user.id, price_id: 'gold' })).status, 422);
  const ok = await s.send('POST', '/api/billing/change-price', { user_id: s.user.id, price_id: 'usage' });
  assert.equal(ok.body, { user_id: s.user.id, price_id: 'usage' });
  assert.is((await s.db.one('SELECT price_id FROM billing_customers WHERE user_id = $1', [s.user.id]))!.price_id, 'usage');
});

settings('PATCH /users/me/limit takes whole cents, 0 or more', async () => {
  const s = await setup();
  for (const limit_cents of [-1, 1.5, '5000', null, 3_000_000_000]) {
    const res = await s.send('PATCH', '/api/users/me/limit', { limit_cents });
    assert.is(res.status, 422, String(limit_cents));
    assert.equal(res.body.detail[0].loc, ['body', 'limit_cents']);
  }
  assert.is((await s.send('PATCH', '/api/users/me/limit', {})).status, 422);
  assert.is((await s.get('/api/users/me')).body.monthly_spend_limit_cents, 0, 'nothing changed');
  assert.is((await s.send('PATCH', '/api/users/me/limit', { limit_cents: 5000 })).body.monthly_spend_limit_cents, 5000);
  assert.is((await s.get('/api/billing/usage-detail')).body.limit_cents, 5000);
});

settings('an admin impersonating a user sees and edits that user\'s billing', async () => {
  const s = await setup();
  await newAgent(s.user.id);
  const admin = await adminToken();
  const as = { 'X-Impersonate-User-Id': String(s.user.id) };
  const customer = await call('/api/billing/customer', { token: admin, headers: as });
  assert.is(customer.body.email, s.user.email);
  await call('/api/billing/customer', { method: 'PATCH', token: admin, headers: as, body: { name: 'Set by support' } });
  assert.is((await s.get('/api/billing/customer')).body.name, 'Set by support');
  assert.is((await call('/api/billing/customer', { token: s.user.token, headers: { 'X-Impersonate-User-Id': '1' } })).status, 403);
});

usage.run();
portal.run();
settings.run();
