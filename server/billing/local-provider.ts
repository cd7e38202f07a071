// The built-in payment provider: billing details and a test card kept in billing_customers, the
// invoice computed from our own usage, and a test-mode portal page (server/billing/portal-routes.ts)
// reached with a single-use token. Nothing is ever charged.
import type { Db } from '../db/db.ts';
import { customerRow, fieldsOf, saveCustomerFields, savePriceId } from './customers.ts';
import { spendByKind } from './usage.ts';
import { issuePortalToken } from './portal-tokens.ts';
import type { BillingProvider, Price, UsageLine } from './types.ts';

export const PORTAL_PATH = '/api/billing/portal';

export const LOCAL_PRICES: Price[] = [
  {
    price_id: 'usage', name: 'Usage-based', description: 'Model calls at their estimated cost, billed monthly',
    unit_amount: null, currency: 'usd', interval: 'month',
  },
];

const KIND_LABEL = { main: 'Model calls by your agents', sub: 'Model calls by sub-agents' } as const;

export function localProvider(db: Db): BillingProvider {
  return {
    name: 'local',
    customer: async (user) => fieldsOf(await customerRow(db, user.id)),
    updateCustomer: async (user, fields) => fieldsOf(await saveCustomerFields(db, user.id, fields)),
    paymentMethod: async (user) => (await customerRow(db, user.id)).payment_method,
    async portalUrl(user, { flowType }) {
      const token = await issuePortalToken(db, user.id);
      return `${PORTAL_PATH}?${new URLSearchParams({ token, ...(flowType ? { flow: flowType } : {}) })}`;
    },
    prices: async () => LOCAL_PRICES,
    setPrice: (user, priceId) => savePriceId(db, user.id, priceId),
    async invoice(user, state, credits) {
      const lines: UsageLine[] = (await spendByKind(db, user.id, state.period)).map((k) => ({
        description: KIND_LABEL[k.kind], amount: Math.round(k.cost * 100), quantity: k.count, unit_amount: null, coupon_nominal: null,
      }));
      return {
        lines,
        applied_credits: Math.round(credits.applied),
        amount_remaining: Math.round(credits.due),
        current_credits_available: Math.round(credits.remaining),
      };
    },
  };
}
