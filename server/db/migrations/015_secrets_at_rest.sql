-- Secrets at rest, and an audit chain only the server's key can extend (migration 015, with its step in Node:
-- 015_secrets_at_rest.ts). The key (SECRETS_KEY or $DATA_DIR/secrets.key) is never in the database.
-- The signing key's private JWK is kept sealed (AES-256-GCM text, server/system/secret-box.ts), as are the values of
-- deployment_secrets; the step seals the rows written before this migration.
ALTER TABLE signing_keys ALTER COLUMN private_jwk TYPE text USING private_jwk::text;

-- Events are now hashed with an HMAC computed by the server (server/domain/audit-hash.ts). Those written before
-- keep their SHA-256 hashes: they are the events before keyed_from, and the last of them has legacy_hash. Where the
-- chain starts (anchor_id, anchor_hash, keyed_from, legacy_hash) is sealed with the key (seal); the step seals it.
ALTER TABLE audit_chain ADD COLUMN keyed_from bigint NOT NULL DEFAULT 1;
ALTER TABLE audit_chain ADD COLUMN legacy_hash text NOT NULL DEFAULT '';
ALTER TABLE audit_chain ADD COLUMN seal text NOT NULL DEFAULT '';
UPDATE audit_chain SET keyed_from = last_id + 1, legacy_hash = last_hash WHERE id = 1;
DROP FUNCTION audit_event_hash(text, bigint, timestamptz, text, text, bigint, text, bigint, text, text, text, text, text, text, text, jsonb);

-- No session setting opens the table any more: a transaction may delete only the events that an audit.prune event
-- it wrote itself covers (through_id). That event is in the keyed chain, and the prune seals the new start.
CREATE OR REPLACE FUNCTION audit_events_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND EXISTS (
    SELECT 1 FROM audit_events p WHERE p.action = 'audit.prune' AND p.xmin::text::bigint = txid_current() % 4294967296
      AND (p.detail->>'through_id')::bigint >= OLD.id
  ) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit events are append-only: % refused', TG_OP USING ERRCODE = '42501';
END
$$;
