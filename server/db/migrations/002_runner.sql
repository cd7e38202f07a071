-- The runner: live instances (a heartbeat, so that another instance can tell a dead run from a
-- live one), the model's own content of each step (thinking signatures and tool_use blocks, to
-- replay the conversation exactly), and indexes for the claim query and the trace list.

CREATE TABLE runner_instances (
  id text PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE thread_steps ADD COLUMN model_content jsonb;

CREATE INDEX threads_queue_head ON threads (agent_id) WHERE schedule_sequence = 1;
CREATE INDEX threads_running ON threads (agent_id) WHERE thread_running;

-- GET /api/llm_traces/ pages by id DESC: per owner (llm_traces_owner), per thread name across
-- owners (admin) and per owner + name; the same indexes give the distinct names by skip scan.
CREATE INDEX llm_traces_name ON llm_traces (thread_name, id DESC);
CREATE INDEX llm_traces_owner_name ON llm_traces (owner_id, thread_name, id DESC);

-- Cost sums (the cost chart, the monthly spend check) read only created_at and estimated_cost:
-- covering indexes let them skip the wide rows (index-only scans).
DROP INDEX llm_traces_created;
DROP INDEX llm_traces_owner_created;
CREATE INDEX llm_traces_created ON llm_traces (created_at) INCLUDE (estimated_cost);
CREATE INDEX llm_traces_owner_created ON llm_traces (owner_id, created_at) INCLUDE (estimated_cost);
