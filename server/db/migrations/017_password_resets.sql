-- One-time links to choose a new password (issue 42): an admin makes one for a user who lost theirs. Only the
-- token's hash is kept; a link is spent when used and worthless after an hour.
CREATE TABLE password_resets (
  token_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_by integer REFERENCES users (id) ON DELETE SET NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
