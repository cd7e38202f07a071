// The warning banner area of the billing page (spec §4): account on hold, limit reached, approaching
// the limit — the first that applies. The billing page passes all three as false, so it shows nothing.
export const BANNER_TEXTS = {
  accountOnHold: 'Payment failed – please update your card to re-enable paid features.',
  limitReached: 'You have reached your monthly spending limit.',
  approachingLimit: 'You are approaching your monthly spending limit.',
} as const;

export type BannerFlags = { accountOnHold: boolean; limitReached: boolean; approachingLimit: boolean };

export function BillingBanner(flags: BannerFlags) {
  const which = (['accountOnHold', 'limitReached', 'approachingLimit'] as const).find((k) => flags[k]);
  if (!which) return null;
  return (
    <div className="billing-banner" role="alert" data-level={which === 'approachingLimit' ? 'warning' : 'danger'}>
      {BANNER_TEXTS[which]}
    </div>
  );
}
