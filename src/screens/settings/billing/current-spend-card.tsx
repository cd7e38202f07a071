// The Current Spend card (spec §2). With a payment method: the period, spent against the limit (∞
// without one), a progress bar capped at 100, credits remaining and 'Edit limit'. Without: the test
// credits left (red, with a call to add a card, once used up). Amounts are whole currency units here.
import type { UsageDetail } from '../../../lib/billing-api.ts';
import { formatMoney, formatPeriod, percentOfLimit } from './money.ts';
import { SpendChart } from './spend-chart.tsx';
import { UsageDetails } from './usage-details.tsx';

type CurrentSpendCardProps = { usage: UsageDetail; hasPaymentMethod: boolean; onEditLimit: () => void };

export function CurrentSpendCard({ usage, hasPaymentMethod, onEditLimit }: CurrentSpendCardProps) {
  const whole = (cents: number) => formatMoney(cents, usage.currency, { whole: true });
  const percent = percentOfLimit(usage.total, usage.limit_cents);
  const credits = usage.current_credits_available;
  return (
    <section className="billing-card" aria-labelledby="spend-title">
      <header className="billing-card-header">
        <h2 id="spend-title">Current Spend</h2>
        {hasPaymentMethod && <button type="button" className="button button-small" onClick={onEditLimit}>Edit limit</button>}
      </header>
      {hasPaymentMethod ? (
        <div className="spend-summary">
          <p className="spend-period muted">{formatPeriod(usage.period_start, usage.period_end)}</p>
          <p className="spend-amount">
            <strong>{whole(usage.total)}</strong>
            <span className="muted"> / {usage.limit_cents > 0 ? whole(usage.limit_cents) : '∞'}</span>
          </p>
          <div
            className="spend-progress"
            role="progressbar"
            aria-label="Spent of the monthly limit"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent ?? 0}
            aria-valuetext={percent === null ? 'No limit' : `${percent}%`}
          >
            <span className="spend-progress-bar" style={{ width: `${percent ?? 0}%` }} data-full={percent === 100 || undefined} />
          </div>
          {credits > 0 && <p className="spend-credits">Credits remaining: {whole(credits)}</p>}
        </div>
      ) : (
        <div className="spend-summary">
          <p className="spend-credits-label">Test credits remaining</p>
          <p className="spend-amount" data-exhausted={credits <= 0 || undefined}><strong>{whole(credits)}</strong></p>
          {credits <= 0 ? (
            <p className="error-text">To continue using the app, please add a payment method.</p>
          ) : (
            <p className="muted">You can transition to usage-based plan any time by adding a payment method. Your test credits will still be available.</p>
          )}
        </div>
      )}
      <SpendChart usage={usage} />
      <UsageDetails usage={usage} hasPaymentMethod={hasPaymentMethod} />
    </section>
  );
}
