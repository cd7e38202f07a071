// The billing wing (spec section 7 "Billing"): prices, the plan, the provider's portal, billing details, the
// payment method and the period's usage, all the caller's own; and the local provider's portal page, which a
// single-use token opens without the Bearer token.
import { arr, bool, input, int, json, media, nullable, num, obj, query, ref, str, type Schema, type WingTable } from '../schema.ts';

const FIELDS = { name: 200, email: 254, address_line1: 200, postal_code: 20, city: 100, country: 2 };
const CUSTOMER = obj(Object.fromEntries(Object.keys(FIELDS).map((f) => [f, str()])));
const CUSTOMER_INPUT = input(Object.fromEntries(Object.entries(FIELDS).map(([f, max]) => [f, str({ maxLength: max })])));
const HTML: Schema = { type: 'string', contentMediaType: 'text/html' };
const page = (description: string) => media('text/html', HTML, description);

export const BILLING: WingTable = {
  tag: 'billing',
  description: 'Prices, billing details, payment method and usage (amounts in cents unless said otherwise).',
  schemas: {
    Price: obj({ price_id: str(), name: str(), description: str(), unit_amount: nullable(int()), currency: str(), interval: nullable(str()) }),
    BillingCustomer: CUSTOMER,
    PaymentMethod: obj({ brand: str(), last4: str(), exp_month: int(), exp_year: int() }),
    UsageLine: obj({
      description: str(), amount: int({ description: 'Negative: a discount' }), quantity: nullable(int()), unit_amount: nullable(int()),
      coupon_nominal: nullable(str()),
    }),
    UsageDetail: obj({
      total: int({ description: "The period's spend" }), limit_cents: int({ description: '0: no limit' }), currency: str(),
      lines: arr(ref('UsageLine')), applied_credits: int(), amount_remaining: int(), current_credits_available: int(),
      period_start: int({ description: 'Unix seconds' }), period_end: int({ description: 'Unix seconds' }), has_payment_method: bool(),
      days: arr(obj({ day: str({ format: 'date' }), cost: num({ description: 'USD' }), count: int() }), { description: 'Spend per UTC day that had calls' }),
    }),
  },
  operations: {
    'GET /billing/prices': { summary: 'The price plans', responses: { 200: json(arr(ref('Price'))) }, errors: [503] },
    'POST /billing/change-price': {
      summary: "Change the caller's price plan",
      body: input({ user_id: int({ description: 'Must be the caller (403 otherwise)' }), price_id: str({ minLength: 1 }) }, ['price_id']),
      responses: { 200: json(obj({ user_id: int(), price_id: str() })) },
    },
    'POST /billing/portal-session': {
      summary: "A link to the provider's portal (opened in a new tab; single-use)",
      body: input({ flow_type: { enum: ['payment_method_update', null] }, purpose: { enum: ['payment_method_update', null] } }),
      responses: { 200: json(obj({ url: str() })) },
    },
    'GET /billing/customer': { summary: "The caller's billing details", responses: { 200: json(ref('BillingCustomer')) } },
    'PATCH /billing/customer': { summary: 'Change billing details', body: CUSTOMER_INPUT, responses: { 200: json(ref('BillingCustomer')) } },
    'GET /billing/payment-method': {
      summary: 'The default card; an empty object when there is none',
      responses: { 200: json({ anyOf: [ref('PaymentMethod'), { type: 'object', maxProperties: 0 }] }) },
    },
    'GET /billing/usage-detail': { summary: "The period's usage and what credits cover", responses: { 200: json(ref('UsageDetail')) } },
    'GET /billing/portal/theme.js': {
      summary: "The portal page's theme script", responses: { 200: media('text/javascript', str(), 'The script') }, noDatabase: true,
    },
    'GET /billing/portal': {
      summary: "The local provider's portal page",
      query: { token: query(str(), 'The single-use token of the portal-session link', true), flow: query(str(), 'payment_method_update: the card form first') },
      responses: { 200: page('The page (its forms carry a fresh token)'), 403: page('The link was used or has expired') },
    },
    'POST /billing/portal': {
      summary: "The portal page's forms: save a test card or billing details",
      body: {
        content: {
          'application/x-www-form-urlencoded': {
            schema: input({
              token: str(), action: { enum: ['card', 'details'] }, number: str(), exp_month: str(), exp_year: str(), cvc: str(),
              ...Object.fromEntries(Object.keys(FIELDS).map((f) => [f, str()])),
            }, ['token', 'action']),
          },
        },
      },
      responses: {
        200: page('Saved; the page again'), 400: page('An unknown form: nothing saved'), 403: page('The link was used or has expired'),
        422: page('The page with what to fix'),
      },
      errors: [415],
    },
  },
};
