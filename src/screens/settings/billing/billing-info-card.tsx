// The Billing Information card (spec §2): name, e-mail and the billing address ('—' where empty),
// with an 'Edit billing information' icon that opens the form.
import { useState } from 'react';
import type { BillingCustomer } from '../../../lib/billing-api.ts';
import { EditIcon } from '../../../ui/icons.tsx';
import { BillingInfoForm } from './billing-info-form.tsx';

const DASH = '—';

export function addressLines(c: BillingCustomer | undefined): string[] {
  if (!c) return [];
  return [c.address_line1, [c.postal_code, c.city].filter(Boolean).join(' '), c.country].filter(Boolean);
}

export function BillingInfoCard({ customer, onSaved }: { customer: BillingCustomer | undefined; onSaved: (c: BillingCustomer) => void }) {
  const [editing, setEditing] = useState(false);
  const address = addressLines(customer);
  return (
    <section className="billing-card" aria-labelledby="info-title">
      <header className="billing-card-header">
        <h2 id="info-title">Billing Information</h2>
        <button type="button" className="icon-button" title="Edit billing information" aria-label="Edit billing information" onClick={() => setEditing(true)}>
          <EditIcon size={18} />
        </button>
      </header>
      <dl className="billing-info">
        <dt>Name</dt>
        <dd>{customer?.name || DASH}</dd>
        <dt>Email</dt>
        <dd>{customer?.email || DASH}</dd>
        <dt>Billing address</dt>
        <dd>{address.length ? address.map((line) => <span key={line} className="billing-address-line">{line}</span>) : DASH}</dd>
      </dl>
      {editing && (
        <BillingInfoForm
          customer={customer}
          onClose={() => setEditing(false)}
          onSaved={(saved) => {
            setEditing(false);
            onSaved(saved);
          }}
        />
      )}
    </section>
  );
}
