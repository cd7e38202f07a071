// The billing details form: PATCH /billing/customer, the server's refusal shown in the dialog.
import { useState, type FormEvent } from 'react';
import { updateCustomer, type BillingCustomer } from '../../../lib/billing-api.ts';
import { detailOr } from '../../../lib/http.ts';
import { FormModal } from './form-modal.tsx';

const FIELDS: { key: keyof BillingCustomer; label: string; autoComplete: string; type?: string; maxLength: number }[] = [
  { key: 'name', label: 'Name', autoComplete: 'name', maxLength: 200 },
  { key: 'email', label: 'Email', autoComplete: 'email', type: 'email', maxLength: 254 },
  { key: 'address_line1', label: 'Address', autoComplete: 'address-line1', maxLength: 200 },
  { key: 'postal_code', label: 'Postal code', autoComplete: 'postal-code', maxLength: 20 },
  { key: 'city', label: 'City', autoComplete: 'address-level2', maxLength: 100 },
  { key: 'country', label: 'Country (two letters, e.g. US)', autoComplete: 'country', maxLength: 2 },
];

const EMPTY: BillingCustomer = { name: '', email: '', address_line1: '', postal_code: '', city: '', country: '' };

type BillingInfoFormProps = { customer: BillingCustomer | undefined; onClose: () => void; onSaved: (c: BillingCustomer) => void };

export function BillingInfoForm({ customer, onClose, onSaved }: BillingInfoFormProps) {
  const [draft, setDraft] = useState<BillingCustomer>({ ...EMPTY, ...customer });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSaved(await updateCustomer(draft));
    } catch (err) {
      setError(detailOr(err, 'Failed to save billing information'));
      setBusy(false);
    }
  };

  return (
    <FormModal title="Edit billing information" busy={busy} onClose={onClose} onSubmit={submit} className="billing-info-form">
      {error && <p className="form-error" role="alert">{error}</p>}
      {FIELDS.map((f) => (
        <label key={f.key} className="field">
          <span>{f.label}</span>
          <input
            type={f.type ?? 'text'}
            value={draft[f.key]}
            autoComplete={f.autoComplete}
            maxLength={f.maxLength}
            onChange={(e) => setDraft({ ...draft, [f.key]: e.target.value })}
          />
        </label>
      ))}
    </FormModal>
  );
}
