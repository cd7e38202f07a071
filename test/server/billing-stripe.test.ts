// The Stripe provider against a local node:http server that speaks Stripe's wire format (form-encoded
// requests, JSON objects, {error: {type, message, code}} replies): customers and their credit balance,
// the portal session, cards, the upcoming invoice — and how Stripe's failures reach our API's {detail}.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chooseBillingProvider } from '../../server/billing/choose.ts';
import { STRIPE_API_VERSION, formEncode } from '../../server/billing/stripe-client.ts';
import { call, newUser, testServer } from './helpers.ts';

type Seen = { method: string; path: string; query: URLSearchParams; form: URLSearchParams; headers: IncomingMessage['headers'] };

/** A stateful stand-in for api.stripe.com, enough for the provider's calls. */
async function fakeStripe() {
  const seen: Seen[] = [];
  const customers = new Map<string, any>();
  const cards = new Map<string, any[]>();
  const invoices = new Map<string, any>();
  const idempotent = new Map<string, any>();
  let failures: { status: number; body: unknown }[] = [];
  let n = 0;
  const stripeError = (status: number, type: string, message: string, code?: string) => ({ status, body: { error: { type, message, code } } });

  const handle = (s: Seen): { status: number; body: unknown } => {
    const key = s.headers['idempotency-key'] as string | undefined;
    if (key && idempotent.has(key)) return idempotent.get(key);
    const reply = (body: unknown) => {
      const r = { status: 200, body };
      if (key) idempotent.set(key, r);
      return r;
    };
    const parts = s.path.split('/').filter(Boolean); // v1, …
    if (s.method === 'POST' && s.path === '/v1/customers') {
      const c = {
        id: `cus_${++n}`, object: 'customer', email: s.form.get('email'), name: s.form.get('name'), balance: 0, address: null,
        invoice_settings: { default_payment_method: null }, metadata: { user_id: s.form.get('metadata[user_id]') },
      };
      customers.set(c.id, c);
      return reply(c);
    }
    if (parts[1] === 'customers' && parts[2]) {
      const c = customers.get(parts[2]);
      if (!c) return stripeError(404, 'invalid_request_error', `No such customer: '${parts[2]}'`, 'resource_missing');
      if (s.method === 'GET' && parts.length === 3) return reply(c);
      if (s.method === 'POST' && parts.length === 3) {
        for (const f of ['name', 'email']) if (s.form.has(f)) c[f] = s.form.get(f);
        if ([...s.form.keys()].some((k) => k.startsWith('address['))) {
          c.address = {
            line1: s.form.get('address[line1]'), postal_code: s.form.get('address[postal_code]'), city: s.form.get('address[city]'),
            country: s.form.get('address[country]'), line2: null, state: null,
          };
        }
        return reply(c);
      }
      if (s.method === 'POST' && parts[3] === 'balance_transactions') {
        c.balance += Number(s.form.get('amount'));
        return reply({ id: `cbtxn_${++n}`, object: 'customer_balance_transaction', amount: Number(s.form.get('amount')), ending_balance: c.balance });
      }
      if (s.method === 'GET' && parts[3] === 'payment_methods') return reply({ object: 'list', data: cards.get(c.id) ?? [], has_more: false });
    }
    if (s.method === 'POST' && s.path === '/v1/billing_portal/sessions') {
      return reply({
        id: `bps_${++n}`, object: 'billing_portal.session', url: `https://billing.stripe.test/p/session/test_${n}`,
        return_url: s.form.get('return_url'), customer: s.form.get('customer'), livemode: false,
      });
    }
    if (s.method === 'GET' && s.path === '/v1/prices') {
      return reply({
        object: 'list',
        data: [{
          id: 'price_usage', object: 'price', unit_amount: 1, currency: 'usd', nickname: null, recurring: { interval: 'month' },
          product: { id: 'prod_1', name: 'Agent usage', description: 'Per cent of model cost' },
        }],
      });
    }
    if (s.method === 'GET' && s.path === '/v1/invoices/upcoming') {
      const inv = invoices.get(s.query.get('customer')!);
      return inv ? reply(inv) : stripeError(404, 'invalid_request_error', 'No upcoming invoices for customer', 'invoice_upcoming_none');
    }
    return stripeError(404, 'invalid_request_error', `Unrecognized request URL (${s.method}: ${s.path})`);
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const url = new URL(req.url!, 'http://x');
    const s: Seen = { method: req.method!, path: url.pathname, query: url.searchParams, form: new URLSearchParams(raw), headers: req.headers };
    seen.push(s);
    const r = failures.shift() ?? handle(s);
    res.writeHead(r.status, { 'Content-Type': 'application/json', 'Request-Id': `req_${n}` });
    res.end(JSON.stringify(r.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base, seen, customers, cards, invoices,
    fail: (...next: { status: number; body: unknown }[]) => void (failures = next),
    stripeError,
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}

let fake: Awaited<ReturnType<typeof fakeStripe>>;
const stripe = suite('billing: Stripe provider');

stripe.before(async () => {
  fake = await fakeStripe();
  const { parts } = await testServer();
  parts.billing = chooseBillingProvider(
    { ...parts.config, billingProvider: 'stripe', stripeSecretKey: 'sk_test_123', stripeApiBase: fake.base }, parts.db);
});

stripe.after(async () => {
  const { parts } = await testServer();
  parts.billing = chooseBillingProvider(parts.config, parts.db);
  await fake.close();
});

async function user() {
  const u = await newUser('stripe');
  return {
    ...u,
    get: (path: string) => call(path, { token: u.token }),
    send: (method: string, path: string, body: unknown) => call(path, { method, token: u.token, body }),
  };
}

stripe('form encoding nests objects and arrays the way Stripe reads them', () => {
  assert.is(
    decodeURIComponent(formEncode({
      customer: 'cus_1',
      flow_data: { type: 'payment_method_update', after_completion: { type: 'redirect', redirect: { return_url: 'https://a/b?c=d' } } },
      expand: ['data.product'],
      skip: undefined,
    })),
    'customer=cus_1&flow_data[type]=payment_method_update&flow_data[after_completion][type]=redirect' +
      '&flow_data[after_completion][redirect][return_url]=https://a/b?c=d&expand[]=data.product');
});

stripe('the first billing call makes one customer, credited with the test credits', async () => {
  const u = await user();
  const [a, b] = await Promise.all([u.get('/api/billing/customer'), u.get('/api/billing/customer')]);
  assert.is(a.status, 200);
  assert.equal(a.body, { name: '', email: u.email, address_line1: '', postal_code: '', city: '', country: '' });
  assert.equal(b.body, a.body);
  const created = fake.seen.filter((s) => s.method === 'POST' && s.path === '/v1/customers' && s.form.get('email') === u.email);
  assert.ok(created.length >= 1);
  assert.ok(created.every((s) => s.headers['idempotency-key'] === `aw-customer-${u.id}`), 'retries and races share one idempotency key');
  assert.is(created[0].headers.authorization, 'Bearer sk_test_123');
  assert.is(created[0].headers['stripe-version'], STRIPE_API_VERSION);
  assert.is(created[0].headers['content-type'], 'application/x-www-form-urlencoded');
  assert.is(created[0].form.get('metadata[user_id]'), String(u.id));
  const customer = [...fake.customers.values()].find((c) => c.email === u.email);
  assert.is(customer.balance, -500);

  const patched = await u.send('PATCH', '/api/billing/customer',
    { name: 'Ada', address_line1: '1 Main St', city: 'Boston', postal_code: '02101', country: 'us' });
  assert.is(patched.status, 200);
  assert.equal(patched.body, { name: 'Ada', email: u.email, address_line1: '1 Main St', postal_code: '02101', city: 'Boston', country: 'US' });
  const update = fake.seen.findLast((s) => s.method === 'POST' && s.path === `/v1/customers/${customer.id}`)!;
  assert.is(update.form.get('address[country]'), 'US');
});

stripe('the portal session asks for the payment_method_update flow and returns Stripe\'s URL', async () => {
  const u = await user();
  const res = await u.send('POST', '/api/billing/portal-session', { flow_type: 'payment_method_update' });
  assert.is(res.status, 200);
  assert.match(res.body.url, /^https:\/\/billing\.stripe\.test\/p\/session\//);
  const sent = fake.seen.findLast((s) => s.path === '/v1/billing_portal/sessions')!;
  assert.match(sent.form.get('customer')!, /^cus_/);
  const back = `${(await testServer()).url}/settings/billing`; // the request's own Host
  assert.is(sent.form.get('return_url'), back);
  assert.is(sent.form.get('flow_data[type]'), 'payment_method_update');
  assert.is(sent.form.get('flow_data[after_completion][type]'), 'redirect');
  assert.is(sent.form.get('flow_data[after_completion][redirect][return_url]'), back);

  // PUBLIC_URL names the app's address when it sits behind a proxy.
  const { config } = (await testServer()).parts;
  config.publicUrl = 'https://app.example.test';
  try {
    const plain = await u.send('POST', '/api/billing/portal-session', {});
    assert.is(plain.status, 200);
    const last = fake.seen.findLast((s) => s.path === '/v1/billing_portal/sessions')!;
    assert.is(last.form.get('return_url'), 'https://app.example.test/settings/billing');
    assert.is(last.form.has('flow_data[type]'), false);
  } finally {
    config.publicUrl = null;
  }
});

stripe('the default card is the payment method, mirrored for the runner; usage-detail reads the upcoming invoice', async () => {
  const u = await user();
  assert.equal((await u.get('/api/billing/payment-method')).body, {});
  const customer = [...fake.customers.values()].find((c) => c.email === u.email);
  fake.cards.set(customer.id, [
    { id: 'pm_1', type: 'card', card: { brand: 'mastercard', last4: '4444', exp_month: 1, exp_year: 2031 } },
    { id: 'pm_2', type: 'card', card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 } },
  ]);
  customer.invoice_settings.default_payment_method = 'pm_2';
  assert.equal((await u.get('/api/billing/payment-method')).body, { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 });

  const empty = (await u.get('/api/billing/usage-detail')).body;
  assert.is(empty.has_payment_method, true);
  assert.equal(empty.lines, []);
  assert.is(empty.current_credits_available, 500);

  fake.invoices.set(customer.id, {
    object: 'invoice', total: 1640, amount_due: 1140, starting_balance: -500, ending_balance: null,
    lines: { object: 'list', data: [
      { description: '1,640 × Agent usage (at $0.01 per unit)', amount: 1640, quantity: 1640, price: { unit_amount: 1 } },
      { description: 'Seat (Tier 1)', amount: 0, quantity: 1, price: null },
    ] },
    total_discount_amounts: [{ amount: 410, discount: { id: 'di_1', coupon: { name: 'Launch', percent_off: 20 } } }],
  });
  const detail = (await u.get('/api/billing/usage-detail')).body;
  assert.equal(detail.lines, [
    { description: '1,640 × Agent usage (at $0.01 per unit)', amount: 1640, quantity: 1640, unit_amount: 1, coupon_nominal: null },
    { description: 'Seat (Tier 1)', amount: 0, quantity: 1, unit_amount: null, coupon_nominal: null },
    { description: 'Launch', amount: -410, quantity: null, unit_amount: null, coupon_nominal: '20% off' },
  ]);
  assert.is(detail.applied_credits, 500);
  assert.is(detail.amount_remaining, 1140);
  assert.is(detail.current_credits_available, 0);
  const upcoming = fake.seen.findLast((s) => s.path === '/v1/invoices/upcoming')!;
  assert.is(upcoming.query.get('expand[]'), 'total_discount_amounts.discount');

  fake.cards.set(customer.id, []);
  assert.equal((await u.get('/api/billing/payment-method')).body, {});
  assert.is((await u.get('/api/billing/usage-detail')).body.has_payment_method, false);
});

stripe('prices come from Stripe; change-price takes only one of them', async () => {
  const u = await user();
  const prices = (await u.get('/api/billing/prices')).body;
  assert.equal(prices, [
    { price_id: 'price_usage', name: 'Agent usage', description: 'Per cent of model cost', unit_amount: 1, currency: 'usd', interval: 'month' },
  ]);
  assert.is((await u.send('POST', '/api/billing/change-price', { user_id: u.id, price_id: 'price_other' })).status, 422);
  assert.is((await u.send('POST', '/api/billing/change-price', { user_id: u.id, price_id: 'price_usage' })).status, 200);
});

stripe('Stripe\'s error replies become clear {detail} errors', async () => {
  const u = await user();
  await u.get('/api/billing/customer'); // the customer exists: each failure below hits the call itself
  const cases: [{ status: number; body: unknown }, number, string][] = [
    [
      fake.stripeError(400, 'invalid_request_error', 'Invalid country code: XX', 'parameter_invalid_string'),
      502, 'Stripe rejected the request: Invalid country code: XX (parameter_invalid_string)',
    ],
    [
      fake.stripeError(402, 'card_error', 'Your card was declined.', 'card_declined'),
      502, 'Stripe rejected the request: Your card was declined. (card_declined)',
    ],
    [
      fake.stripeError(401, 'invalid_request_error', 'Invalid API Key provided: sk_test_***123'),
      502, 'Stripe refused our API key: Invalid API Key provided: sk_test_***123',
    ],
    [fake.stripeError(429, 'rate_limit_error', 'Too many requests'), 503, 'Stripe is limiting requests; try again in a moment'],
    [fake.stripeError(500, 'api_error', 'Something went wrong on Stripe\'s end.'), 502, 'Stripe failed: Something went wrong on Stripe\'s end.'],
    [{ status: 503, body: 'upstream connect error' }, 502, 'Stripe failed: HTTP 503 from Stripe'],
  ];
  for (const [reply, status, detail] of cases) {
    fake.fail(reply);
    const res = await u.send('PATCH', '/api/billing/customer', { name: 'x' });
    assert.is(res.status, status, detail);
    assert.equal(res.body, { detail }, detail);
  }
  fake.fail(fake.stripeError(500, 'api_error', 'down'));
  const portal = await u.send('POST', '/api/billing/portal-session', {});
  assert.equal([portal.status, portal.body.detail], [502, 'Stripe failed: down']);
});

stripe('an unreachable Stripe is a 503', async () => {
  const u = await user();
  const { parts } = await testServer();
  const saved = parts.billing;
  parts.billing = chooseBillingProvider(
    { ...parts.config, billingProvider: 'stripe', stripeSecretKey: 'sk_test_123', stripeApiBase: 'http://127.0.0.1:9' }, parts.db);
  try {
    const res = await u.get('/api/billing/payment-method');
    assert.is(res.status, 503);
    assert.match(res.body.detail, /^Stripe is not reachable: /);
  } finally {
    parts.billing = saved;
  }
});

stripe.run();
