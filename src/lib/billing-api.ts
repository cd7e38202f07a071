// Typed calls for the billing endpoints (spec §7 "Billing", PATCH /users/me/limit) and the shapes of
// spec §3. Money is in cents. The paths double as useResource keys; BILLING_CACHE is spec §9's
// "stale after 5 minutes, one retry, no refetch on window focus".
import { request } from './http.ts';

export const BILLING_CACHE = { freshFor: 5 * 60_000, revalidateOnFocus: false, retry: 1 } as const;

export type UsageLine = { description: string; amount: number; quantity: number | null; unit_amount: number | null; coupon_nominal: string | null };
export type UsageDetail = {
  total: number;
  /** 0 means no limit. */
  limit_cents: number;
  currency: string;
  applied_credits: number;
  amount_remaining: number;
  current_credits_available: number;
  /** Unix seconds; the end is exclusive (the next period's start). */
  period_start: number;
  period_end: number;
  lines: UsageLine[];
  /** USD per UTC day of the period that had model calls (the daily-spend chart). */
  days?: { day: string; cost: number; count: number }[];
};
/** An empty object means none. */
export type PaymentMethod = { brand: string; last4: string; exp_month: number; exp_year: number } | Record<string, never>;
export type BillingCustomer = { name: string; email: string; address_line1: string; postal_code: string; city: string; country: string };

export const usageDetailPath = '/billing/usage-detail';
export const paymentMethodPath = '/billing/payment-method';
export const customerPath = '/billing/customer';

export const hasCard = (pm: PaymentMethod | undefined): pm is Exclude<PaymentMethod, Record<string, never>> => !!pm && 'last4' in pm;

export const openPortalSession = (flowType?: 'payment_method_update') =>
  request<{ url: string }>('/billing/portal-session', { method: 'POST', body: flowType ? { flow_type: flowType } : {} });
export const updateCustomer = (fields: Partial<BillingCustomer>) => request<BillingCustomer>(customerPath, { method: 'PATCH', body: fields });
export const setSpendLimit = (limitCents: number) => request('/users/me/limit', { method: 'PATCH', body: { limit_cents: limitCents } });
