-- Reports: when an entry was marked reviewed. Billing: the one test-credit grant per user (made on
-- first use, so BILLING_TEST_CREDITS_CENTS applies to users made before billing existed too), and
-- the local payment portal's single-use tokens (only their hashes).

ALTER TABLE report_entries ADD COLUMN reviewed_at timestamptz;

ALTER TABLE credit_grants ADD COLUMN kind text NOT NULL DEFAULT 'grant' CHECK (kind IN ('test', 'grant'));
CREATE UNIQUE INDEX credit_grants_test_once ON credit_grants (user_id) WHERE kind = 'test';

CREATE TABLE billing_portal_tokens (
  token_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX billing_portal_tokens_expiry ON billing_portal_tokens (expires_at);
