// The Usage Details list (spec §2): lines with a positive amount (cleaned description, 'Qty n · unit
// price each'), discounts as 'Discount (description – amount off)', and with a payment method the
// credits applied and the total due.
import type { UsageDetail } from '../../../lib/billing-api.ts';
import { cleanDescription, formatMoney } from './money.ts';

export function UsageDetails({ usage, hasPaymentMethod }: { usage: UsageDetail; hasPaymentMethod: boolean }) {
  const money = (cents: number) => formatMoney(cents, usage.currency);
  const lines = usage.lines.filter((l) => l.amount !== 0);
  return (
    <div className="usage-details">
      <h3 className="billing-subheading">Usage Details</h3>
      <ul className="usage-lines">
        {lines.length === 0 && <li className="usage-line muted">No usage this period.</li>}
        {lines.map((l, i) =>
          l.amount > 0 ? (
            <li key={i} className="usage-line">
              <span className="usage-line-text">
                <span>{cleanDescription(l.description)}</span>
                {l.quantity !== null && l.unit_amount !== null && (
                  <span className="usage-line-qty muted">Qty {l.quantity.toLocaleString('en-US')} · {money(l.unit_amount)} each</span>
                )}
              </span>
              <span className="usage-line-amount">{money(l.amount)}</span>
            </li>
          ) : (
            <li key={i} className="usage-line" data-kind="discount">
              <span className="usage-line-text">Discount ({cleanDescription(l.description)} – {l.coupon_nominal ?? `${money(-l.amount)} off`})</span>
              <span className="usage-line-amount">{money(l.amount)}</span>
            </li>
          ),
        )}
        {hasPaymentMethod && usage.applied_credits > 0 && (
          <li className="usage-line" data-kind="credits">
            <span className="usage-line-text">Credits applied</span>
            <span className="usage-line-amount">{money(-usage.applied_credits)}</span>
          </li>
        )}
        {hasPaymentMethod && (
          <li className="usage-line" data-kind="total">
            <span className="usage-line-text">Total due</span>
            <span className="usage-line-amount">{money(usage.amount_remaining)}</span>
          </li>
        )}
      </ul>
    </div>
  );
}
