// Supervision's SQL (issue 19): each agent's runaway-guard settings, what a thread's model calls cost since the
// last human message, where a hand-back goes, and who to e-mail. A thread's needs_help itself: threads/needs-help.ts.
import type { Queryable } from '../db/db.ts';

export type GuardSettings = {
  /** The same action on the same spot with an unchanged screen this many times in a row; 0: off. */
  repeat_limit: number;
  /** Cost since the last human message, in cents; 0: off. */
  cost_cap_cents: number;
  /** Model calls since the last human message; 0: off. */
  max_calls: number;
};

export const GUARD_DEFAULTS: GuardSettings = { repeat_limit: 5, cost_cap_cents: 200, max_calls: 200 };
export const GUARD_LIMITS: GuardSettings = { repeat_limit: 1000, cost_cap_cents: 10_000_000, max_calls: 100_000 };

/** Where a take-over's action log goes when no thread waits for help: the queue's head, else the latest thread. */
export async function handBackThread(q: Queryable, agentId: number): Promise<number | null> {
  const [row] = await q.query<{ id: number }>(
    `SELECT id FROM threads WHERE agent_id = $1
     ORDER BY (needs_help IS NOT NULL) DESC, (schedule_sequence = 1) IS TRUE DESC, updated_at DESC, id DESC LIMIT 1`, [agentId]);
  return row?.id ?? null;
}

export async function getGuardSettings(q: Queryable, agentId: number): Promise<GuardSettings | null> {
  const [row] = await q.query<GuardSettings>(
    `SELECT guard_repeat_limit AS repeat_limit, guard_cost_cap_cents AS cost_cap_cents, guard_max_calls AS max_calls
     FROM agents WHERE id = $1`, [agentId]);
  return row ?? null;
}

export async function setGuardSettings(q: Queryable, agentId: number, s: GuardSettings): Promise<GuardSettings | null> {
  const [row] = await q.query<GuardSettings>(
    `UPDATE agents SET guard_repeat_limit = $2, guard_cost_cap_cents = $3, guard_max_calls = $4, updated_at = now() WHERE id = $1
     RETURNING guard_repeat_limit AS repeat_limit, guard_cost_cap_cents AS cost_cap_cents, guard_max_calls AS max_calls`,
    [agentId, s.repeat_limit, s.cost_cap_cents, s.max_calls]);
  return row ?? null;
}

/**
 * The thread's model calls (sub-agents' included) since the person last wrote in it or handed the desktop back,
 * and what they cost (USD). The guard's own notes in the traces do not count.
 */
export async function usageSinceHuman(q: Queryable, threadId: number): Promise<{ calls: number; cost: number }> {
  const [row] = await q.query<{ calls: number; cost: number }>(
    `SELECT count(*)::int AS calls, coalesce(sum(estimated_cost), 0)::float8 AS cost FROM llm_traces
     WHERE thread_id = $1 AND (parameters->>'paused') IS NULL
       AND created_at > coalesce((SELECT max(created_at) FROM thread_steps
         WHERE thread_id = $1 AND (user_text <> '' OR user_files <> '[]'::jsonb)), '-infinity')`, [threadId]);
  return row;
}

/** For the owner's e-mail: who owns the agent, its name and the thread's. */
export async function helpContext(q: Queryable, threadId: number) {
  const [row] = await q.query<{ email: string; agent_id: number; agent_name: string; thread_name: string; email_prefix: string | null }>(
    `SELECT u.email, a.id AS agent_id, a.name AS agent_name, t.name AS thread_name, a.email_prefix
     FROM threads t JOIN agents a ON a.id = t.agent_id JOIN users u ON u.id = a.owner_id WHERE t.id = $1`, [threadId]);
  return row ?? null;
}
