// Billing details as users may set them (PATCH /api/billing/customer and the local portal's form):
// text fields trimmed and capped, e-mail empty or an address, country empty or a two-letter code
// (what Stripe's address.country takes).
import { validEmail } from '../auth/index.ts';
import { CUSTOMER_FIELDS, type CustomerFields } from './customers.ts';

type Field = keyof CustomerFields;
export const FIELD_LIMITS: Record<Field, number> = { name: 200, email: 254, address_line1: 200, postal_code: 20, city: 100, country: 2 };

export type Checked = { fields: Partial<CustomerFields>; errors: Partial<Record<Field, string>> };

/** Only the fields present in `input` are checked and returned; others stay as they are. */
export function checkCustomerFields(input: Record<string, unknown>): Checked {
  const fields: Partial<CustomerFields> = {};
  const errors: Partial<Record<Field, string>> = {};
  for (const name of CUSTOMER_FIELDS) {
    const raw = input[name];
    if (raw === undefined) continue;
    if (raw !== null && typeof raw !== 'string') {
      errors[name] = `${name} must be text`;
      continue;
    }
    let value = (raw ?? '').trim();
    if (name === 'country') value = value.toUpperCase();
    if (name === 'country' && value && !/^[A-Z]{2}$/.test(value)) errors[name] = 'country must be a two-letter country code, such as US or DE';
    else if (value.length > FIELD_LIMITS[name]) errors[name] = `${name} must be at most ${FIELD_LIMITS[name]} characters`;
    else if (name === 'email' && value && !validEmail(value)) errors[name] = 'email must be an e-mail address';
    else fields[name] = value;
  }
  return { fields, errors };
}
