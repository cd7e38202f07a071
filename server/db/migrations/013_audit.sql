-- The audit trail (issue 25): an append-only record of every change, written in the change's own transaction.
-- Each event carries a SHA-256 hash over its content and the hash of the event before it (audit_event_hash);
-- the one row of audit_chain is the chain's head, locked by every append (FOR UPDATE) so that concurrent
-- writers on PostgreSQL append one at a time and ids follow the chain. Updates and deletes are refused by a
-- trigger, except the retention prune's deletes (it sets audit.prune for its transaction and anchors the chain).
CREATE TABLE audit_events (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  instance text NOT NULL,
  actor_type text NOT NULL CHECK (actor_type IN ('user', 'agent', 'system')),
  actor_id bigint,
  actor_label text,
  impersonator_id bigint,
  impersonator_label text,
  action text NOT NULL,
  target_type text,
  target_id text,
  request_id text,
  ip text,
  user_agent text,
  detail jsonb NOT NULL DEFAULT '{}',
  prev_hash text NOT NULL,
  hash text NOT NULL
);
CREATE INDEX audit_events_at ON audit_events (at, id);
CREATE INDEX audit_events_action ON audit_events (action text_pattern_ops, id);
CREATE INDEX audit_events_actor ON audit_events (actor_id, id) WHERE actor_id IS NOT NULL;
CREATE INDEX audit_events_impersonator ON audit_events (impersonator_id, id) WHERE impersonator_id IS NOT NULL;
CREATE INDEX audit_events_actor_label ON audit_events (lower(actor_label), id);
CREATE INDEX audit_events_impersonator_label ON audit_events (lower(impersonator_label), id);
CREATE INDEX audit_events_target ON audit_events (target_type, target_id, id);

-- The chain's head: the newest event's id, hash and time, and where the chain starts (0 and '' until a prune).
-- An event's time is never before the one before it (last_at), so times follow ids and a time range is an id range.
CREATE TABLE audit_chain (
  id integer PRIMARY KEY CHECK (id = 1),
  last_id bigint NOT NULL DEFAULT 0,
  last_hash text NOT NULL DEFAULT '',
  last_at timestamptz NOT NULL DEFAULT '-infinity',
  anchor_id bigint NOT NULL DEFAULT 0,
  anchor_hash text NOT NULL DEFAULT ''
);
INSERT INTO audit_chain (id) VALUES (1);

-- The hash of one event: SHA-256 over the previous hash and a JSON array of its fields (jsonb's text is canonical).
CREATE FUNCTION audit_event_hash(prev text, id bigint, at timestamptz, instance text, actor_type text, actor_id bigint,
  actor_label text, impersonator_id bigint, impersonator_label text, action text, target_type text, target_id text,
  request_id text, ip text, user_agent text, detail jsonb) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT encode(sha256(convert_to(prev || jsonb_build_array(id, (extract(epoch FROM at) * 1000000)::bigint, instance, actor_type, actor_id,
    actor_label, impersonator_id, impersonator_label, action, target_type, target_id, request_id, ip, user_agent, detail)::text, 'UTF8')), 'hex')
$$;

CREATE FUNCTION audit_events_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('audit.prune', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit events are append-only: % refused', TG_OP USING ERRCODE = '42501';
END
$$;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_refuse();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse();
