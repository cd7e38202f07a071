// Writes one LLM trace per model call (failed calls too), and reads this month's spend against the
// owner's monthly limit.
import type { Queryable } from '../db/db.ts';
import type { Usage } from '../models/types.ts';

export type TraceRecord = {
  owner_id: number;
  agent_id: number;
  thread_id: number;
  thread_name: string;
  model: string;
  usage: Usage;
  cost: number;
  latencyMs: number;
  parameters: unknown;
  request: unknown;
  response: unknown;
};

export async function recordTrace(db: Queryable, t: TraceRecord): Promise<number> {
  const [row] = await db.query<{ id: number }>(
    `INSERT INTO llm_traces (owner_id, agent_id, thread_id, thread_name, model, cache_read_tokens, input_tokens, output_tokens,
       estimated_cost, latency, parameters, request, response)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
    [t.owner_id, t.agent_id, t.thread_id, t.thread_name.slice(0, 200), t.model, t.usage.cache_read_tokens,
      // "In" counts every prompt token not read from the cache (cache writes included).
      t.usage.input_tokens + t.usage.cache_write_tokens, t.usage.output_tokens,
      t.cost, Math.round(t.latencyMs) / 1000, json(t.parameters), json(t.request), json(t.response)]);
  return row.id;
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v).replace(/\\u0000/g, ''));

export type Spend = { limitUsd: number; spentUsd: number };

/** The owner's limit (0 = none) and this calendar month's (UTC) estimated cost so far (not summed without a limit). */
export async function monthlySpend(db: Queryable, ownerId: number): Promise<Spend> {
  const [row] = await db.query<{ limit_cents: number; spent: number }>(
    `SELECT u.monthly_spend_limit_cents AS limit_cents,
       CASE WHEN u.monthly_spend_limit_cents > 0 THEN
         (SELECT COALESCE(sum(estimated_cost), 0) FROM llm_traces
          WHERE owner_id = u.id AND created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
       ELSE 0 END::float8 AS spent
     FROM users u WHERE u.id = $1`, [ownerId]);
  return { limitUsd: (row?.limit_cents ?? 0) / 100, spentUsd: row?.spent ?? 0 };
}

export const usd = (n: number) => `$${n.toFixed(2)}`;
