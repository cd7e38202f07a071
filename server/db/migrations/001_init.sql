-- The whole data model of spec section 3. Ids are int4 identities (numbers in JSON on both engines).

CREATE TABLE users (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email text NOT NULL,
  password_hash text,
  role text NOT NULL DEFAULT 'user' CHECK (role IN ('admin', 'user')),
  name text NOT NULL DEFAULT '',
  monthly_spend_limit_cents integer NOT NULL DEFAULT 0 CHECK (monthly_spend_limit_cents >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- Refresh sessions: only a hash of the cookie value is stored.
CREATE TABLE auth_sessions (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX auth_sessions_user ON auth_sessions (user_id);

CREATE TABLE signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  private_jwk jsonb NOT NULL,
  public_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE agents (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) > 0),
  system_prompt text NOT NULL DEFAULT '',
  notes text NOT NULL DEFAULT '',
  instructions text NOT NULL DEFAULT '',
  email_prefix text,
  email_accept_from_addresses jsonb,
  file_path text,
  target_run_state text NOT NULL DEFAULT 'stop' CHECK (target_run_state IN ('run', 'run_all', 'stop')),
  running_state text NOT NULL DEFAULT 'idle',
  agent_running boolean NOT NULL DEFAULT false,
  cua_client_connected boolean NOT NULL DEFAULT false,
  screenshot_path text,
  screenshot_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agents_owner ON agents (owner_id, id);
CREATE INDEX agents_updated ON agents (updated_at DESC);
CREATE UNIQUE INDEX agents_email_prefix_key ON agents (lower(email_prefix)) WHERE email_prefix IS NOT NULL;

CREATE TABLE threads (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  agent_id integer NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  name text NOT NULL DEFAULT '',
  description text NOT NULL DEFAULT '',
  thread_running boolean NOT NULL DEFAULT false,
  error_message text NOT NULL DEFAULT '',
  schedule_sequence integer CHECK (schedule_sequence > 0),
  approval_required boolean NOT NULL DEFAULT false,
  target_run_state text,
  target_sequence integer,
  run_owner text,
  run_started_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX threads_agent_updated ON threads (agent_id, updated_at DESC);
CREATE INDEX threads_queue ON threads (agent_id, schedule_sequence) WHERE schedule_sequence IS NOT NULL;
CREATE INDEX threads_approval ON threads (updated_at) WHERE approval_required;

CREATE TABLE thread_steps (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  thread_id integer NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  sequence integer NOT NULL,
  reasoning_text text NOT NULL DEFAULT '',
  assistant_text text NOT NULL DEFAULT '',
  user_text text NOT NULL DEFAULT '',
  user_files jsonb NOT NULL DEFAULT '[]',
  tool_calls jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (thread_id, sequence)
);

CREATE TABLE chat_messages (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  agent_id integer NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  thread_id integer REFERENCES threads (id) ON DELETE SET NULL,
  role text NOT NULL CHECK (role IN ('user', 'assistant', 'reasoning', 'tool_call', 'warning', 'error')),
  user_data jsonb,
  assistant_data jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_messages_agent ON chat_messages (agent_id, id DESC);

CREATE TABLE comm_messages (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  thread_id integer NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('inbound', 'outbound')),
  outbound_state text CHECK (outbound_state IN ('success', 'requires_approval', 'queued', 'dead')),
  from_address text NOT NULL DEFAULT '',
  to_address text NOT NULL DEFAULT '',
  subject text NOT NULL DEFAULT '',
  text text NOT NULL DEFAULT '',
  files jsonb NOT NULL DEFAULT '[]',
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comm_messages_thread ON comm_messages (thread_id, id);
CREATE INDEX comm_messages_outbox ON comm_messages (outbound_state) WHERE outbound_state = 'queued';

CREATE TABLE schedules (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  agent_id integer NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  frequency text NOT NULL CHECK (frequency IN ('daily', 'weekly', 'monthly', 'interval')),
  schedule_time text,
  weekdays jsonb NOT NULL DEFAULT '[]',
  week_interval integer NOT NULL DEFAULT 1,
  day_of_month integer,
  "interval" integer,
  message text NOT NULL DEFAULT '',
  next_run_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX schedules_agent ON schedules (agent_id);
CREATE INDEX schedules_due ON schedules (next_run_at);

CREATE TABLE uploaded_files (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  agent_id integer REFERENCES agents (id) ON DELETE CASCADE,
  file_path text NOT NULL UNIQUE,
  original_name text NOT NULL,
  size_bytes bigint NOT NULL,
  content_type text NOT NULL DEFAULT 'application/octet-stream',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX uploaded_files_agent ON uploaded_files (agent_id);

CREATE TABLE llm_traces (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  agent_id integer REFERENCES agents (id) ON DELETE SET NULL,
  thread_id integer REFERENCES threads (id) ON DELETE SET NULL,
  thread_name text NOT NULL DEFAULT 'Main',
  model text NOT NULL DEFAULT '',
  cache_read_tokens integer NOT NULL DEFAULT 0,
  input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  estimated_cost double precision NOT NULL DEFAULT 0,
  latency double precision NOT NULL DEFAULT 0,
  parameters jsonb,
  request jsonb,
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX llm_traces_owner ON llm_traces (owner_id, id DESC);
CREATE INDEX llm_traces_thread ON llm_traces (thread_id, id);
CREATE INDEX llm_traces_created ON llm_traces (created_at);
CREATE INDEX llm_traces_owner_created ON llm_traces (owner_id, created_at);

CREATE TABLE reports (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  agent_id integer REFERENCES agents (id) ON DELETE SET NULL,
  thread_id integer REFERENCES threads (id) ON DELETE SET NULL,
  title text NOT NULL DEFAULT '',
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reports_owner_created ON reports (owner_id, created_at DESC);

CREATE TABLE report_entries (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  report_id integer NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
  title text NOT NULL DEFAULT '',
  description text NOT NULL DEFAULT '',
  completion_rate double precision CHECK (completion_rate BETWEEN 0 AND 1),
  needs_review boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX report_entries_report ON report_entries (report_id, created_at);
CREATE INDEX report_entries_review ON report_entries (created_at DESC) WHERE needs_review;

-- Billing: credits granted to a user, their customer record and payment method.
CREATE TABLE credit_grants (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  amount_cents integer NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_grants_user ON credit_grants (user_id);

CREATE TABLE billing_customers (
  user_id integer PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  provider_customer_id text,
  price_id text,
  name text NOT NULL DEFAULT '',
  email text NOT NULL DEFAULT '',
  address_line1 text NOT NULL DEFAULT '',
  postal_code text NOT NULL DEFAULT '',
  city text NOT NULL DEFAULT '',
  country text NOT NULL DEFAULT '',
  payment_method jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE recordings (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id text NOT NULL UNIQUE,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  agent_id integer NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  started_at timestamptz NOT NULL DEFAULT now(),
  stopped_at timestamptz,
  audio_path text,
  audio_content_type text
);
CREATE INDEX recordings_agent ON recordings (agent_id, started_at DESC);
