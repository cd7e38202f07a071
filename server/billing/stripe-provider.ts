// The Stripe payment provider: one Stripe customer per user (made on first use, with the test credits
// as a customer balance credit), billing details and cards kept by Stripe and mirrored locally, the
// customer portal for cards (flow payment_method_update), and the upcoming invoice's lines.
// Left out: subscriptions and metered usage reporting (the price chosen is recorded, not subscribed).
import type { Db } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';
import { customerRow, saveCustomerFields, savePaymentMethod, savePriceId, saveProviderCustomerId } from './customers.ts';
import { StripeError, type StripeClient } from './stripe-client.ts';
import type { BillingProvider, BillingUser, CustomerFields, PaymentMethod, UsageLine } from './types.ts';

/** Stripe's failure as the {detail} our API answers with: our request was fine, the upstream was not. */
export function stripeHttpError(err: unknown): unknown {
  if (!(err instanceof StripeError)) return err;
  const code = err.code ? ` (${err.code})` : '';
  if (err.status === 0) return new HttpError(503, `Stripe is not reachable: ${err.message}`);
  if (err.status === 429) return new HttpError(503, 'Stripe is limiting requests; try again in a moment');
  if (err.status === 401 || err.status === 403) return new HttpError(502, `Stripe refused our API key: ${err.message}`);
  if (err.status >= 500) return new HttpError(502, `Stripe failed: ${err.message}`);
  return new HttpError(502, `Stripe rejected the request: ${err.message}${code}`);
}

const fieldsFrom = (c: any): CustomerFields => ({
  name: c.name ?? '', email: c.email ?? '', address_line1: c.address?.line1 ?? '',
  postal_code: c.address?.postal_code ?? '', city: c.address?.city ?? '', country: c.address?.country ?? '',
});

function couponNominal(coupon: any): string | null {
  if (coupon?.percent_off) return `${coupon.percent_off}% off`;
  if (coupon?.amount_off) return `$${(coupon.amount_off / 100).toFixed(2)} off`;
  return null;
}

export function stripeProvider(db: Db, stripe: StripeClient, testCreditsCents: number): BillingProvider {
  async function customerId(user: BillingUser): Promise<string> {
    const row = await customerRow(db, user.id);
    if (row.provider_customer_id) return row.provider_customer_id;
    // Idempotency keys make a second request racing this one get the same customer and credit.
    const created = await stripe.post('/v1/customers', {
      email: row.email || user.email, name: row.name || user.name || undefined, metadata: { user_id: user.id },
    }, { idempotencyKey: `aw-customer-${user.id}` });
    if (testCreditsCents > 0) {
      await stripe.post(`/v1/customers/${created.id}/balance_transactions`, {
        amount: -testCreditsCents, currency: 'usd', description: 'Test credits',
      }, { idempotencyKey: `aw-test-credits-${user.id}` });
    }
    return saveProviderCustomerId(db, user.id, created.id);
  }

  const guard = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    try {
      return await fn(...args);
    } catch (err) {
      throw stripeHttpError(err);
    }
  };

  return {
    name: 'stripe',
    customer: guard(async (user) => {
      const fields = fieldsFrom(await stripe.get(`/v1/customers/${await customerId(user)}`));
      await saveCustomerFields(db, user.id, fields);
      return fields;
    }),
    updateCustomer: guard(async (user, f) => {
      const address = { line1: f.address_line1, postal_code: f.postal_code, city: f.city, country: f.country };
      const hasAddress = Object.values(address).some((v) => v !== undefined);
      const c = await stripe.post(`/v1/customers/${await customerId(user)}`, { name: f.name, email: f.email, address: hasAddress ? address : undefined });
      const fields = fieldsFrom(c);
      await saveCustomerFields(db, user.id, fields);
      return fields;
    }),
    paymentMethod: guard(async (user) => {
      const id = await customerId(user);
      const [customer, list] = await Promise.all([
        stripe.get(`/v1/customers/${id}`),
        stripe.get(`/v1/customers/${id}/payment_methods`, { type: 'card', limit: 10 }),
      ]);
      const cards: any[] = list.data ?? [];
      const preferred = customer.invoice_settings?.default_payment_method;
      const pm = cards.find((m) => m.id === preferred) ?? cards[0];
      const method: PaymentMethod | null = pm?.card
        ? { brand: pm.card.brand, last4: pm.card.last4, exp_month: pm.card.exp_month, exp_year: pm.card.exp_year }
        : null;
      await savePaymentMethod(db, user.id, method);
      return method;
    }),
    portalUrl: guard(async (user, { flowType, returnUrl }) => {
      const session = await stripe.post('/v1/billing_portal/sessions', {
        customer: await customerId(user),
        return_url: returnUrl,
        flow_data: flowType ? { type: flowType, after_completion: { type: 'redirect', redirect: { return_url: returnUrl } } } : undefined,
      });
      return session.url as string;
    }),
    prices: guard(async () => {
      const list = await stripe.get('/v1/prices', { active: true, limit: 20, expand: ['data.product'] });
      return (list.data ?? []).map((p: any) => ({
        price_id: p.id, name: p.product?.name ?? p.nickname ?? p.id, description: p.product?.description ?? '',
        unit_amount: p.unit_amount ?? null, currency: p.currency, interval: p.recurring?.interval ?? null,
      }));
    }),
    setPrice: (user, priceId) => savePriceId(db, user.id, priceId),
    invoice: guard(async (user, state, credits) => {
      const id = await customerId(user);
      const [customer, upcoming] = await Promise.all([
        stripe.get(`/v1/customers/${id}`),
        stripe.get('/v1/invoices/upcoming', { customer: id, expand: ['total_discount_amounts.discount'] }).catch((err) => {
          if (err instanceof StripeError && err.code === 'invoice_upcoming_none') return null; // nothing to bill yet
          throw err;
        }),
      ]);
      const lines: UsageLine[] = (upcoming?.lines?.data ?? []).map((l: any) => ({
        description: l.description ?? '', amount: l.amount ?? 0, quantity: l.quantity ?? null,
        unit_amount: l.price?.unit_amount ?? null, coupon_nominal: null,
      }));
      for (const d of upcoming?.total_discount_amounts ?? []) {
        const coupon = typeof d.discount === 'object' ? d.discount?.coupon : null;
        lines.push({ description: coupon?.name ?? 'Coupon', amount: -d.amount, quantity: null, unit_amount: null, coupon_nominal: couponNominal(coupon) });
      }
      // A negative balance is credit the customer holds; the next invoice uses it first.
      const balanceCredit = Math.max(0, -(customer.balance ?? 0));
      const applied = upcoming ? Math.min(balanceCredit, Math.max(0, upcoming.total ?? 0)) : 0;
      return {
        lines,
        applied_credits: applied,
        amount_remaining: upcoming?.amount_due ?? 0,
        // Stripe's balance only moves when invoices finalize: before a card exists, our own count is the live one.
        current_credits_available: state.hasPaymentMethod ? balanceCredit - applied : Math.round(credits.remaining),
      };
    }),
  };
}
