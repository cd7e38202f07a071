-- Personal API tokens (issue 46): `aw_` + 32 random bytes (base64url), kept only as the SHA-256 of the whole token;
-- `prefix` (its first characters) lets a person recognise it. A token acts as its user within its scope: read (GET
-- only), write (everything but admin routes) or admin (an admin's, everything); never as someone else.
CREATE TABLE api_tokens (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  scope text NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
  hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id, id DESC);
