// The Payment Method card (spec §2): brand, '•••• last4', '(exp MM/YY)' and an 'Update card' edit
// icon; or 'No payment method set.' with 'Add card'. Both open the portal in a new tab.
import { hasCard, type PaymentMethod } from '../../../lib/billing-api.ts';
import { CardIcon, EditIcon } from '../../../ui/icons.tsx';
import { openPortal } from './portal.ts';

const two = (n: number) => String(n % 100).padStart(2, '0');
const brandName = (brand: string) => (brand ? brand.charAt(0).toUpperCase() + brand.slice(1) : 'Card');

export function PaymentMethodCard({ method }: { method: PaymentMethod | undefined }) {
  const update = () => void openPortal('payment_method_update');
  return (
    <section className="billing-card" aria-labelledby="payment-title">
      <header className="billing-card-header">
        <h2 id="payment-title">Payment Method</h2>
        {hasCard(method) && (
          <button type="button" className="icon-button" title="Update card" aria-label="Update card" onClick={update}>
            <EditIcon size={18} />
          </button>
        )}
      </header>
      {hasCard(method) ? (
        <p className="payment-card">
          <CardIcon className="payment-card-icon" />
          <span className="payment-card-brand">{brandName(method.brand)}</span>
          <span className="payment-card-number">•••• {method.last4}</span>
          <span className="muted">(exp {two(method.exp_month)}/{two(method.exp_year)})</span>
        </p>
      ) : (
        <div className="payment-none">
          <p className="muted">No payment method set.</p>
          <button type="button" className="button button-primary" onClick={update}>Add card</button>
        </div>
      )}
    </section>
  );
}
