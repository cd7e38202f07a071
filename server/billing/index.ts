// The billing wing's door: what the rest of the server uses of it.
export { chooseBillingProvider } from './choose.ts';
export { registerBillingPortalRoutes } from './portal-routes.ts';
export { registerBillingRoutes } from './routes.ts';
export type { BillingProvider } from './types.ts';
export { refusal, reserveSpend, settleSpend, spendState } from './usage.ts';
