-- Homes that follow the desktop (issue 50): when a desktop stops or falls asleep, its home is stored as one compressed
-- archive (a blob, `blob_key`), and the instance that starts it next restores the newest one first when its own copy
-- is older. One row per stored generation; older ones are deleted once a newer one is stored. `fingerprint` hashes
-- the home's listing (names, kinds, modes, sizes, times), so an unchanged home is not stored again; `sha256` is the
-- archive's own, checked when it is restored.
CREATE TABLE home_checkpoints (
  agent_id integer NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  generation integer NOT NULL,
  blob_key text NOT NULL,
  bytes bigint NOT NULL,
  home_bytes bigint NOT NULL,
  fingerprint text NOT NULL,
  sha256 text NOT NULL,
  instance_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, generation)
);
