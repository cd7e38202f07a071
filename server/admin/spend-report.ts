// The admins' spend report: what each user's agents cost per UTC calendar month (the traces' estimated cost,
// as billing counts it), each user's top agents, and who is near (80 %) or over their monthly limit.
import type { Queryable } from '../db/db.ts';

export type SpendStatus = 'no_limit' | 'ok' | 'near' | 'over';
export type UserSpend = {
  month: string; user_id: number; email: string; spend_cents: number; limit_cents: number; status: SpendStatus;
  top_agents: { agent_id: number | null; name: string; spend_cents: number }[];
};

/** Share of the limit from which a user counts as near it. */
export const NEAR_LIMIT = 0.8;
const TOP_AGENTS = 3;

/** 'YYYY-MM' → the month's first day (UTC); null for anything else. */
export function parseMonth(value: string): Date | null {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(value);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)) : null;
}

const monthOf = (d: Date) => d.toISOString().slice(0, 7);
const addMonths = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));

export function statusOf(spendCents: number, limitCents: number): SpendStatus {
  if (!limitCents) return 'no_limit';
  if (spendCents >= limitCents) return 'over';
  return spendCents >= limitCents * NEAR_LIMIT ? 'near' : 'ok';
}

/** Users who spent anything in the month (or are near or over their limit), the highest spend first. */
export async function spendReport(db: Queryable, month: Date): Promise<UserSpend[]> {
  const start = monthOf(month) + '-01';
  const end = monthOf(addMonths(month, 1)) + '-01';
  const users = await db.query<{ user_id: number; email: string; limit_cents: number; spend_cents: number }>(
    `SELECT u.id AS user_id, u.email, u.monthly_spend_limit_cents AS limit_cents, COALESCE(sum(d.cost), 0)::float8 * 100 AS spend_cents
     FROM users u JOIN llm_trace_days d ON d.owner_id = u.id AND d.day >= $1::date AND d.day < $2::date
     GROUP BY u.id HAVING sum(d.cost) > 0 ORDER BY spend_cents DESC, u.email`, [start, end]);
  const agents = await db.query<{ owner_id: number; agent_id: number | null; name: string | null; spend_cents: number }>(
    `SELECT owner_id, agent_id, name, spend_cents FROM (
       SELECT t.owner_id, t.agent_id, a.name, sum(t.estimated_cost)::float8 * 100 AS spend_cents,
         row_number() OVER (PARTITION BY t.owner_id ORDER BY sum(t.estimated_cost) DESC, t.agent_id) AS rank
       FROM llm_traces t LEFT JOIN agents a ON a.id = t.agent_id
       WHERE t.created_at >= $1::date AND t.created_at < $2::date AND t.estimated_cost > 0
       GROUP BY t.owner_id, t.agent_id, a.name) ranked
     WHERE rank <= ${TOP_AGENTS} ORDER BY owner_id, rank`, [start, end]);
  const byOwner = new Map<number, UserSpend['top_agents']>();
  for (const a of agents) {
    const list = byOwner.get(a.owner_id) ?? [];
    list.push({ agent_id: a.agent_id, name: a.name ?? (a.agent_id === null ? 'Deleted agents' : `Agent ${a.agent_id}`), spend_cents: a.spend_cents });
    byOwner.set(a.owner_id, list);
  }
  return users.map((u) => ({
    month: monthOf(month), ...u, status: statusOf(u.spend_cents, u.limit_cents), top_agents: byOwner.get(u.user_id) ?? [],
  }));
}

/** The last `months` months up to `month`, oldest first (the CSV export). */
export async function spendReportMonths(db: Queryable, month: Date, months: number): Promise<UserSpend[]> {
  const rows: UserSpend[] = [];
  for (let i = months - 1; i >= 0; i--) rows.push(...(await spendReport(db, addMonths(month, -i))));
  return rows;
}
