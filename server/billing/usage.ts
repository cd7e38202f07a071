// What a user has spent and may still spend: usage is the traces' estimated cost (USD, summed per
// UTC day by migration 003's llm_trace_days) in the current monthly period — the UTC calendar month —
// against the test credits (granted once, on first use) or, with a payment method, the monthly limit.
// Amounts here are USD cents as floats: rounding is left to what is shown.
import type { Db, Queryable } from '../db/db.ts';

export type Period = { start: Date; end: Date };

export type SpendState = {
  period: Period;
  /** 0 = no limit. */
  limitCents: number;
  hasPaymentMethod: boolean;
  /** Every credit ever granted. */
  creditsCents: number;
  usedBeforeCents: number;
  periodCents: number;
};

export type Credits = {
  /** Credits left when the period began (earlier periods used them first). */
  atStart: number;
  /** What this period's usage takes from them. */
  applied: number;
  /** Left after this period's usage; below 0 only without a payment method (the overspend of the last call). */
  remaining: number;
  /** Usage the credits do not cover. */
  due: number;
};

export type DaySpend = { day: string; cost: number; count: number };
export type KindSpend = { kind: 'main' | 'sub'; cost: number; count: number };

export function monthlyPeriod(now: Date = new Date()): Period {
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** Gives the user their test credits unless they already had them. */
export async function grantTestCredits(db: Queryable, userId: number, cents: number): Promise<void> {
  await db.query(
    `INSERT INTO credit_grants (user_id, amount_cents, description, kind) VALUES ($1, $2, 'Test credits', 'test')
     ON CONFLICT (user_id) WHERE kind = 'test' DO NOTHING`, [userId, cents]);
}

export async function spendState(db: Queryable, userId: number, testCreditsCents: number, now: Date = new Date()): Promise<SpendState> {
  const period = monthlyPeriod(now);
  const read = () => db.query<{
    limit_cents: number; has_payment_method: boolean; has_test_grant: boolean;
    credits_cents: number; before_usd: number; period_usd: number;
  }>(
    `SELECT u.monthly_spend_limit_cents AS limit_cents,
       COALESCE(bc.payment_method IS NOT NULL, false) AS has_payment_method,
       EXISTS (SELECT 1 FROM credit_grants g WHERE g.user_id = u.id AND g.kind = 'test') AS has_test_grant,
       (SELECT COALESCE(sum(g.amount_cents), 0)::float8 FROM credit_grants g WHERE g.user_id = u.id) AS credits_cents,
       (SELECT COALESCE(sum(d.cost), 0)::float8 FROM llm_trace_days d WHERE d.owner_id = u.id AND d.day < $2::date) AS before_usd,
       (SELECT COALESCE(sum(d.cost), 0)::float8 FROM llm_trace_days d WHERE d.owner_id = u.id AND d.day >= $2::date AND d.day < $3::date) AS period_usd
     FROM users u LEFT JOIN billing_customers bc ON bc.user_id = u.id WHERE u.id = $1`,
    [userId, day(period.start), day(period.end)]);
  let [row] = await read();
  if (!row) throw new Error(`no user ${userId}`);
  if (!row.has_test_grant) {
    await grantTestCredits(db, userId, testCreditsCents);
    [row] = await read();
  }
  return {
    period,
    limitCents: row.limit_cents,
    hasPaymentMethod: row.has_payment_method,
    creditsCents: row.credits_cents,
    usedBeforeCents: row.before_usd * 100,
    periodCents: row.period_usd * 100,
  };
}

/** How long a reservation outlives a server that died during its call. */
const RESERVATION_MINUTES = 15;

/**
 * Reserves what a model call may cost against the owner's credits or limit, or says why it may not start.
 * In one transaction under the owner's row lock, so that the instances of a fleet share it: calls in flight
 * count as spent, and once they reach the line no other starts. A run may pass the line by the one call in
 * flight that crossed it, never by more.
 */
export async function reserveSpend(db: Db, userId: number, testCreditsCents: number, cents: number): Promise<{ id: number } | { refused: string }> {
  return db.tx(async (q) => {
    await q.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
    const state = await spendState(q, userId, testCreditsCents);
    const [{ reserved }] = await q.query<{ reserved: number }>(
      'SELECT COALESCE(sum(cents), 0)::float8 AS reserved FROM spend_reservations WHERE owner_id = $1 AND expires_at > now()', [userId]);
    const refused = refusal({ ...state, periodCents: state.periodCents + reserved });
    if (refused) return { refused };
    const [row] = await q.query<{ id: number }>(
      `INSERT INTO spend_reservations (owner_id, cents, expires_at) VALUES ($1, $2, now() + interval '${RESERVATION_MINUTES} minutes') RETURNING id`,
      [userId, cents]);
    return { id: Number(row.id) };
  });
}

/** The call's trace now counts what it cost: its reservation goes (and any that expired). */
export async function settleSpend(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM spend_reservations WHERE id = $1 OR expires_at < now()', [id]);
}

export function credits(s: SpendState): Credits {
  const atStart = Math.max(0, s.creditsCents - s.usedBeforeCents);
  const applied = Math.min(atStart, s.periodCents);
  const left = atStart - s.periodCents;
  return { atStart, applied, remaining: s.hasPaymentMethod ? Math.max(0, left) : left, due: s.periodCents - applied };
}

const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/**
 * Why new work is refused, or null. Without a payment method the test credits must last; with one,
 * the monthly limit (if any) must not be reached. Checked before every model call.
 */
export function refusal(s: SpendState): string | null {
  if (!s.hasPaymentMethod) {
    if (credits(s).remaining > 0) return null;
    return `Test credits used up: ${usd(s.usedBeforeCents + s.periodCents)} spent of ${usd(s.creditsCents)} in test credits. ` +
      'Add a payment method in Billing settings to continue.';
  }
  if (s.limitCents > 0 && s.periodCents >= s.limitCents) {
    return `Monthly spend limit reached: ${usd(s.periodCents)} of ${usd(s.limitCents)} used this month. Raise the limit in Billing settings to continue.`;
  }
  return null;
}

/** Spend per UTC day of the period (only days with calls). */
export async function spendByDay(db: Queryable, userId: number, period: Period): Promise<DaySpend[]> {
  return db.query<DaySpend>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(cost)::float8 AS cost, sum(count)::int AS count
     FROM llm_trace_days WHERE owner_id = $1 AND day >= $2::date AND day < $3::date GROUP BY day ORDER BY day`,
    [userId, day(period.start), day(period.end)]);
}

/** Spend of the period by the agents themselves ('Main' threads) and their sub-agents ('Sub'). */
export async function spendByKind(db: Queryable, userId: number, period: Period): Promise<KindSpend[]> {
  return db.query<KindSpend>(
    `SELECT CASE WHEN thread_name LIKE 'Sub%' THEN 'sub' ELSE 'main' END AS kind, sum(cost)::float8 AS cost, sum(count)::int AS count
     FROM llm_trace_days WHERE owner_id = $1 AND day >= $2::date AND day < $3::date GROUP BY 1 ORDER BY 1`,
    [userId, day(period.start), day(period.end)]);
}
