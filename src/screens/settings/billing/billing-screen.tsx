// Billing settings (/settings/billing, spec §2): the banner area, Current Spend (with the daily
// chart and usage details), Payment Method, Billing Information and the 'Set spend limit' dialog.
// Failures (spec §8): no usage → the spend card is left out; no payment method or billing details →
// logged and shown as none.
import { useEffect, useState } from 'react';
import {
  BILLING_CACHE, customerPath, hasCard, paymentMethodPath, usageDetailPath,
  type BillingCustomer, type PaymentMethod, type UsageDetail,
} from '../../../lib/billing-api.ts';
import { useTitle } from '../../../lib/title.tsx';
import { useResource } from '../../../lib/use-resource.ts';
import { env } from '../../../lib/environment.ts';
import { takePortalVisit } from './portal.ts';
import { SettingsLayout } from '../settings-layout.tsx';
import { BillingBanner } from './billing-banner.tsx';
import { BillingInfoCard } from './billing-info-card.tsx';
import { CurrentSpendCard } from './current-spend-card.tsx';
import { PaymentMethodCard } from './payment-method-card.tsx';
import { SpendLimitDialog } from './spend-limit-dialog.tsx';

export default function BillingScreen() {
  useTitle('Settings');
  const usage = useResource<UsageDetail>(usageDetailPath, BILLING_CACHE);
  const method = useResource<PaymentMethod>(paymentMethodPath, BILLING_CACHE);
  const customer = useResource<BillingCustomer>(customerPath, BILLING_CACHE);
  const [editingLimit, setEditingLimit] = useState(false);
  const refetch = [usage.mutate, method.mutate, customer.mutate];

  // Back from the portal's tab: what it changed shows without a reload.
  useEffect(() => env.onFocus(() => {
    if (env.isVisible() && takePortalVisit()) for (const again of refetch) void again();
  }));

  useEffect(() => {
    if (method.error) console.error('Failed to load the payment method:', method.error.detail);
  }, [method.error]);
  useEffect(() => {
    if (customer.error) console.error('Failed to load billing information:', customer.error.detail);
  }, [customer.error]);

  const loading = usage.isLoading || method.isLoading || customer.isLoading;
  const paymentMethod = method.error ? undefined : method.data;
  return (
    <SettingsLayout>
      <div className="billing">
        <h2 className="billing-heading">Billing</h2>
        <BillingBanner accountOnHold={false} limitReached={false} approachingLimit={false} />
        {loading && <p className="muted" role="status">Loading…</p>}
        {!loading && (
          <>
            {usage.data && !usage.error && (
              <CurrentSpendCard usage={usage.data} hasPaymentMethod={hasCard(paymentMethod)} onEditLimit={() => setEditingLimit(true)} />
            )}
            <PaymentMethodCard method={paymentMethod} />
            <BillingInfoCard customer={customer.error ? undefined : customer.data} onSaved={(saved) => void customer.mutate(saved)} />
          </>
        )}
        {editingLimit && usage.data && (
          <SpendLimitDialog currentCents={usage.data.limit_cents} currency={usage.data.currency} onClose={() => setEditingLimit(false)} />
        )}
      </div>
    </SettingsLayout>
  );
}
