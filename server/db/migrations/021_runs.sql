-- Runs and their replays (issue 44). A run is one stretch of work on a thread, from the runner's claim to its
-- stop, finish, failure or pause; its steps, chat messages and model calls carry its id. A run on a desktop is
-- recorded as a Guacamole session recording, gzip, in $DATA_DIR/files/<recording_path> on the instance that ran it
-- (instance_id); recording_bytes counts against the agent's storage quota. Replay shares are read-only links:
-- only the SHA-256 of the token is kept.
CREATE TABLE runs (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  thread_id integer NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  agent_id integer NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  instance_id text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz,
  outcome text NOT NULL DEFAULT 'running' CHECK (outcome IN ('running', 'done', 'stopped', 'failed', 'paused')),
  cost double precision NOT NULL DEFAULT 0,
  -- Relative to $DATA_DIR/files; NULL: no recording (no desktop, or pruned).
  recording_path text,
  -- The first frame's time (its sync timestamp), for the markers' place in the recording.
  recording_started_at timestamptz,
  -- Compressed bytes on disk.
  recording_bytes bigint NOT NULL DEFAULT 0,
  -- True once the file is a whole gzip stream; until then (recording, or its instance died) it is read to its last flush.
  recording_done boolean NOT NULL DEFAULT false,
  -- Why the recording stopped before the run, said to the person; NULL when it did not.
  recording_stopped text,
  -- [[from, to], …] in ms since the epoch: when frames were written (the replay skips what lies between).
  recording_activity jsonb
);
CREATE INDEX runs_thread_id_idx ON runs (thread_id, id DESC);
CREATE INDEX runs_agent_id_idx ON runs (agent_id);
CREATE INDEX runs_owner_id_idx ON runs (owner_id);
CREATE INDEX runs_recorded ON runs (started_at) WHERE recording_path IS NOT NULL;
CREATE INDEX runs_open ON runs (thread_id) WHERE ended_at IS NULL;

ALTER TABLE thread_steps ADD COLUMN run_id integer REFERENCES runs (id) ON DELETE SET NULL;
ALTER TABLE chat_messages ADD COLUMN run_id integer REFERENCES runs (id) ON DELETE SET NULL;
ALTER TABLE llm_traces ADD COLUMN run_id integer REFERENCES runs (id) ON DELETE SET NULL;
CREATE INDEX thread_steps_run_id_idx ON thread_steps (run_id);
CREATE INDEX chat_messages_run_id_idx ON chat_messages (run_id);
CREATE INDEX llm_traces_run_id_idx ON llm_traces (run_id);

CREATE TABLE replay_shares (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id integer NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_by integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX replay_shares_run_id_idx ON replay_shares (run_id);
CREATE INDEX replay_shares_created_by_idx ON replay_shares (created_by);

-- The steps page says which run wrote each step (the thread's "Watch replay" link goes on a run's first step).
CREATE OR REPLACE FUNCTION thread_step_page_json() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.page_json := (SELECT to_json(s)::text FROM (SELECT NEW.id AS id, NEW.thread_id AS thread_id, NEW.sequence AS sequence,
    NEW.reasoning_text AS reasoning_text, NEW.assistant_text AS assistant_text, NEW.user_text AS user_text,
    NEW.user_files AS user_files, NEW.tool_calls AS tool_calls, NEW.run_id AS run_id,
    to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
    to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at) s);
  RETURN NEW;
END $$;
