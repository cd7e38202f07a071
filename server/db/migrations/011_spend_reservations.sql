-- What model calls in flight may still cost: reserved against the owner's limit before a call and removed
-- once its trace is written, so that agents running at once cannot all pass the check before any call counts.
-- A reservation a dead server left behind expires.
CREATE TABLE spend_reservations (
  id bigserial PRIMARY KEY,
  owner_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  cents double precision NOT NULL CHECK (cents >= 0),
  expires_at timestamptz NOT NULL
);
CREATE INDEX spend_reservations_owner ON spend_reservations (owner_id, expires_at);
