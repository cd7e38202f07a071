-- Supervision (issue 19). A thread waiting for a person: {question, asked_at, reason, resume} while the agent asked
-- for help or the runaway guard paused it, NULL otherwise. Each agent's runaway guard: the same action on an
-- unchanged screen this many times in a row, the cost since the last human message above this many cents, more
-- model calls than this since the last human message; 0 turns a rule off.
ALTER TABLE threads ADD COLUMN needs_help jsonb;
CREATE INDEX threads_needs_help ON threads (agent_id) WHERE needs_help IS NOT NULL;
ALTER TABLE agents ADD COLUMN guard_repeat_limit integer NOT NULL DEFAULT 5 CHECK (guard_repeat_limit >= 0);
ALTER TABLE agents ADD COLUMN guard_cost_cap_cents integer NOT NULL DEFAULT 200 CHECK (guard_cost_cap_cents >= 0);
ALTER TABLE agents ADD COLUMN guard_max_calls integer NOT NULL DEFAULT 200 CHECK (guard_max_calls >= 0);
