// The billing_customers row of a user: billing details, the chosen price, the provider's customer id
// and the payment method. With the local provider this is the whole record; with Stripe it mirrors
// what Stripe said last, so the runner's spend check never waits on Stripe.
import type { Queryable } from '../db/db.ts';

export type CustomerFields = { name: string; email: string; address_line1: string; postal_code: string; city: string; country: string };
export type PaymentMethod = { brand: string; last4: string; exp_month: number; exp_year: number };
export type CustomerRow = CustomerFields & {
  user_id: number; provider_customer_id: string | null; price_id: string | null; payment_method: PaymentMethod | null;
};

export const CUSTOMER_FIELDS = ['name', 'email', 'address_line1', 'postal_code', 'city', 'country'] as const;
const COLUMNS = `user_id, provider_customer_id, price_id, ${CUSTOMER_FIELDS.join(', ')}, payment_method`;

export const fieldsOf = (row: CustomerFields): CustomerFields =>
  Object.fromEntries(CUSTOMER_FIELDS.map((f) => [f, row[f] ?? ''])) as CustomerFields;

/** The user's row, made on first use with their account's name and e-mail. */
export async function customerRow(db: Queryable, userId: number): Promise<CustomerRow> {
  await db.query(
    `INSERT INTO billing_customers (user_id, name, email) SELECT id, name, email FROM users WHERE id = $1 ON CONFLICT (user_id) DO NOTHING`,
    [userId]);
  const [row] = await db.query<CustomerRow>(`SELECT ${COLUMNS} FROM billing_customers WHERE user_id = $1`, [userId]);
  return row;
}

export async function saveCustomerFields(db: Queryable, userId: number, fields: Partial<CustomerFields>): Promise<CustomerRow> {
  await customerRow(db, userId);
  const names = CUSTOMER_FIELDS.filter((f) => fields[f] !== undefined);
  if (names.length) {
    await db.query(
      `UPDATE billing_customers SET ${names.map((f, i) => `${f} = $${i + 2}`).join(', ')}, updated_at = now() WHERE user_id = $1`,
      [userId, ...names.map((f) => fields[f])]);
  }
  return customerRow(db, userId);
}

export async function savePaymentMethod(db: Queryable, userId: number, method: PaymentMethod | null): Promise<void> {
  await customerRow(db, userId);
  await db.query('UPDATE billing_customers SET payment_method = $2, updated_at = now() WHERE user_id = $1',
    [userId, method ? JSON.stringify(method) : null]);
}

export async function savePriceId(db: Queryable, userId: number, priceId: string): Promise<void> {
  await customerRow(db, userId);
  await db.query('UPDATE billing_customers SET price_id = $2, updated_at = now() WHERE user_id = $1', [userId, priceId]);
}

/** Records the provider's customer id unless one is there already; returns the one that stays. */
export async function saveProviderCustomerId(db: Queryable, userId: number, id: string): Promise<string> {
  await customerRow(db, userId);
  await db.query(
    'UPDATE billing_customers SET provider_customer_id = $2, updated_at = now() WHERE user_id = $1 AND provider_customer_id IS NULL',
    [userId, id]);
  return (await customerRow(db, userId)).provider_customer_id!;
}
