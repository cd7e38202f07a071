// /api/billing (spec §7 "Billing"): prices, plan, portal, billing details, payment method and the
// period's usage. Everything acts on the caller's own billing (the impersonated user's, for an admin
// acting as them); the provider (local or Stripe) sits behind services.billing.
import type { Api, Ctx } from '../http/api.ts';
import { ownOrigin } from '../http/origin.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { credits, spendByDay, spendState } from './usage.ts';
import { checkCustomerFields } from './customer-fields.ts';
import { RETURN_PATH } from './portal-page.ts';
import type { BillingProvider, BillingUser } from './types.ts';
import type { Config } from '../config/index.ts';

/** `port`: the one the server listens on (read per request: a test server picks any free one). */
type Deps = { billing?: BillingProvider; config: Pick<Config, 'publicUrl' | 'testCreditsCents'>; port: number };

const FLOW_TYPES = ['payment_method_update'] as const;

export function registerBillingRoutes(api: Api, deps: Deps) {
  api.get('/billing/prices', (ctx) => provider(deps).prices());

  api.post('/billing/change-price', async (ctx) => {
    const body = await objectBody(ctx);
    if (body.user_id !== undefined && body.user_id !== ctx.user.id) throw new HttpError(403, 'You can change only your own price plan');
    if (typeof body.price_id !== 'string' || !body.price_id) throw invalid('price_id', 'price_id is required');
    const prices = await provider(deps).prices();
    if (!prices.some((p) => p.price_id === body.price_id)) throw invalid('price_id', `Unknown price: ${body.price_id}`);
    await provider(deps).setPrice(who(ctx), body.price_id);
    return { user_id: ctx.user.id, price_id: body.price_id };
  });

  api.post('/billing/portal-session', async (ctx) => {
    const body = await objectBody(ctx);
    const flow = body.flow_type ?? body.purpose ?? null;
    if (flow !== null && !FLOW_TYPES.includes(flow as never)) throw invalid('flow_type', `flow_type must be one of ${FLOW_TYPES.join(', ')}, or absent`);
    const url = await provider(deps).portalUrl(who(ctx), { flowType: flow as (typeof FLOW_TYPES)[number] | null, returnUrl: appUrl(deps, ctx) + RETURN_PATH });
    return { url };
  });

  api.get('/billing/customer', (ctx) => provider(deps).customer(who(ctx)));

  api.patch('/billing/customer', async (ctx) => {
    const { fields, errors } = checkCustomerFields(await objectBody(ctx));
    const issues = Object.entries(errors).map(([field, msg]) => ({ loc: ['body', field], msg: msg!, type: 'value_error' }));
    if (issues.length) throw new HttpError(422, issues);
    return provider(deps).updateCustomer(who(ctx), fields);
  });

  // An empty object means no payment method (spec §3).
  api.get('/billing/payment-method', async (ctx) => (await provider(deps).paymentMethod(who(ctx))) ?? {});

  api.get('/billing/usage-detail', async (ctx) => {
    const { db } = ctx;
    const { config } = deps;
    const state = await spendState(db, ctx.user.id, config.testCreditsCents);
    const c = credits(state);
    const [invoice, days] = await Promise.all([provider(deps).invoice(who(ctx), state, c), spendByDay(db, ctx.user.id, state.period)]);
    return {
      total: Math.round(state.periodCents),
      limit_cents: state.limitCents,
      currency: 'usd',
      ...invoice,
      period_start: Math.floor(state.period.start.getTime() / 1000),
      period_end: Math.floor(state.period.end.getTime() / 1000),
      has_payment_method: state.hasPaymentMethod,
      // The daily-spend chart: USD per UTC day of the period that had calls.
      days,
    };
  });
}

function provider(deps: Deps): BillingProvider {
  if (!deps.billing) throw new HttpError(503, 'Billing is not configured');
  return deps.billing;
}

const who = (ctx: Ctx): BillingUser => ({ id: ctx.user.id, email: ctx.user.email, name: ctx.user.name });

async function objectBody(ctx: Ctx): Promise<Record<string, unknown>> {
  return ctx.body(); // always an object (Api checks)
}

/** Our own origin (Stripe's return_url must be absolute): PUBLIC_URL, else a Host that names this server. */
function appUrl(deps: Deps, ctx: Ctx): string {
  const config = { publicUrl: deps.config.publicUrl, port: deps.port };
  return ownOrigin(ctx.req, config) ?? `http://localhost:${config.port}`;
}
