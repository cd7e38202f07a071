// Picks the payment provider from the configuration (BILLING_PROVIDER).
import type { Config } from '../config/index.ts';
import type { Db } from '../db/db.ts';
import { localProvider } from './local-provider.ts';
import { stripeClient } from './stripe-client.ts';
import { stripeProvider } from './stripe-provider.ts';
import type { BillingProvider } from './types.ts';

export function chooseBillingProvider(config: Config, db: Db, fetchImpl?: typeof fetch): BillingProvider {
  if (config.billingProvider === 'local') return localProvider(db);
  if (!config.stripeSecretKey) throw new Error('BILLING_PROVIDER=stripe needs STRIPE_SECRET_KEY');
  const client = stripeClient({ secretKey: config.stripeSecretKey, apiBase: config.stripeApiBase, fetch: fetchImpl });
  return stripeProvider(db, client, config.testCreditsCents);
}
