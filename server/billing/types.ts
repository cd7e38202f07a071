// The payment provider behind /api/billing: 'local' (records in our database, a built-in test-mode
// portal) or 'stripe' (Stripe's REST API). Usage and its enforcement never depend on the provider:
// server/billing/usage.ts computes them from the traces.
import type { CustomerFields, PaymentMethod } from './customers.ts';
import type { Credits, SpendState } from './usage.ts';

export type { CustomerFields, PaymentMethod };

export type BillingUser = { id: number; email: string; name: string };

/** One line of the period's invoice; amounts in cents, negative for a discount. */
export type UsageLine = { description: string; amount: number; quantity: number | null; unit_amount: number | null; coupon_nominal: string | null };

export type Price = { price_id: string; name: string; description: string; unit_amount: number | null; currency: string; interval: string | null };

/** How the provider bills the period: its lines and what credits cover. Cents. */
export type Invoice = { lines: UsageLine[]; applied_credits: number; amount_remaining: number; current_credits_available: number };

export type PortalOptions = { flowType: 'payment_method_update' | null; returnUrl: string };

export type BillingProvider = {
  readonly name: 'local' | 'stripe';
  customer(user: BillingUser): Promise<CustomerFields>;
  updateCustomer(user: BillingUser, fields: Partial<CustomerFields>): Promise<CustomerFields>;
  /** The default card, or null; also recorded locally (the runner reads that). */
  paymentMethod(user: BillingUser): Promise<PaymentMethod | null>;
  /** Where the user adds or replaces a card: a page opened in a new tab. */
  portalUrl(user: BillingUser, options: PortalOptions): Promise<string>;
  prices(): Promise<Price[]>;
  setPrice(user: BillingUser, priceId: string): Promise<void>;
  invoice(user: BillingUser, state: SpendState, credits: Credits): Promise<Invoice>;
};
