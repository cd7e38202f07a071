-- The credential vault (issue 45): credentials a user keeps for their agents to type into sign-in forms without
-- ever seeing them. The values (username, password, TOTP secret) are sealed with VAULT_KEY (AES-256-GCM, each for
-- its own row and field); names, targets and notes are not secret. vault_check holds a known text sealed with the
-- key, so that an instance started with another key refuses to start instead of failing each fill.
CREATE TABLE vault_check (
  id integer PRIMARY KEY CHECK (id = 1),
  sealed text NOT NULL
);

CREATE TABLE credentials (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  username_sealed text,
  password_sealed text,
  totp_sealed text,
  -- ["https://*.example.com", "window:xterm:*Sign in*", …] in their canonical form (server/vault/targets.ts).
  targets jsonb NOT NULL DEFAULT '[]',
  notes text NOT NULL DEFAULT '',
  -- Granted with "ask me before each use": every fill waits for the owner's approval.
  ask_each_time boolean NOT NULL DEFAULT false,
  values_changed_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (owner_id, name)
);

CREATE TABLE credential_grants (
  credential_id integer NOT NULL REFERENCES credentials (id) ON DELETE CASCADE,
  agent_id integer NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  PRIMARY KEY (credential_id, agent_id)
);
CREATE INDEX credential_grants_agent_id_idx ON credential_grants (agent_id);

-- Every fill the agents asked for, typed or not: its outcome says which ("filled", "refused: …", "denied", …).
CREATE TABLE credential_fills (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  credential_id integer NOT NULL REFERENCES credentials (id) ON DELETE CASCADE,
  agent_id integer REFERENCES agents (id) ON DELETE SET NULL,
  thread_id integer REFERENCES threads (id) ON DELETE SET NULL,
  field text NOT NULL,
  target text NOT NULL DEFAULT '',
  outcome text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credential_fills_credential_id_idx ON credential_fills (credential_id, id DESC);
CREATE INDEX credential_fills_agent_id_idx ON credential_fills (agent_id);
CREATE INDEX credential_fills_thread_id_idx ON credential_fills (thread_id);

-- A fill waiting for its owner ("ask me before each use"), with the screen the agent saw; no answer by
-- expires_at counts as denied.
CREATE TABLE credential_approvals (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  credential_id integer NOT NULL REFERENCES credentials (id) ON DELETE CASCADE,
  agent_id integer NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  thread_id integer NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  field text NOT NULL,
  target text NOT NULL,
  screenshot bytea,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'denied', 'expired')),
  asked_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  decided_at timestamptz,
  decided_by integer REFERENCES users (id) ON DELETE SET NULL
);
CREATE INDEX credential_approvals_credential_id_idx ON credential_approvals (credential_id);
CREATE INDEX credential_approvals_agent_id_idx ON credential_approvals (agent_id);
CREATE INDEX credential_approvals_thread_id_idx ON credential_approvals (thread_id, id DESC);
CREATE INDEX credential_approvals_decided_by_idx ON credential_approvals (decided_by);
