-- Webhooks (issue 46): a user's endpoints and the deliveries queued for them. An event becomes one delivery per
-- endpoint that wants it, in the transaction that made the event (at least once: a delivery outlives a restart);
-- every instance claims due deliveries with SKIP LOCKED, and a claim moves next_attempt_at on by a lease, so a
-- delivery whose instance died is tried again. The secret is sealed with the secrets key (system/secret-box.ts).
CREATE TABLE webhook_endpoints (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url text NOT NULL,
  events text[] NOT NULL,
  agent_id integer REFERENCES agents (id) ON DELETE CASCADE,
  secret text NOT NULL,
  secret_prefix text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_user_id_idx ON webhook_endpoints (user_id, id DESC);
CREATE INDEX webhook_endpoints_agent_id_idx ON webhook_endpoints (agent_id);

CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  endpoint_id integer NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  type text NOT NULL,
  -- {timestamp, data}: data's links are paths, made whole with the server's origin when sent.
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt integer NOT NULL DEFAULT 0,
  response_code integer,
  latency_ms integer,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  next_attempt_at timestamptz
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_id_idx ON webhook_deliveries (endpoint_id, id DESC);
