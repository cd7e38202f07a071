-- OpenID Connect sign-in (issue 49). A provider's account is keyed by (issuer, subject), never by e-mail alone, and
-- belongs to one user (made at its first sign-in, or an existing one linked on a verified e-mail).
CREATE TABLE oidc_accounts (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  issuer text NOT NULL,
  subject text NOT NULL,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The e-mail the provider gave at the last sign-in (the user's own may differ).
  email text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (issuer, subject)
);
CREATE INDEX oidc_accounts_user_id_idx ON oidc_accounts (user_id);

-- A sign-in under way: the browser holds a random value in a cookie, the server keeps its hash with the state,
-- nonce and PKCE verifier; the callback takes the row (once) within ten minutes.
CREATE TABLE oidc_flows (
  id_hash text PRIMARY KEY,
  state text NOT NULL,
  nonce text NOT NULL,
  code_verifier text NOT NULL,
  redirect_uri text NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Which sign-in sessions came from which provider account and provider session (sid): back-channel logout ends them,
-- and sign-out sends the browser to the provider's end_session_endpoint with the ID token as a hint.
CREATE TABLE oidc_sessions (
  session_id integer PRIMARY KEY REFERENCES auth_sessions (id) ON DELETE CASCADE,
  account_id integer NOT NULL REFERENCES oidc_accounts (id) ON DELETE CASCADE,
  sid text,
  id_token text NOT NULL
);
CREATE INDEX oidc_sessions_account_id_idx ON oidc_sessions (account_id);
CREATE INDEX oidc_sessions_sid_idx ON oidc_sessions (sid);

-- Logout tokens already acted on (their jti's hash) until they expire: a replayed one is refused.
CREATE TABLE oidc_logout_tokens (
  jti_hash text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
