// Writes one LLM trace per model call (failed calls too). What they add up to is billing's business
// (server/domain/billing-usage.ts).
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
