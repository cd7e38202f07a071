-- E-mail (issue 10): threading headers of every message we receive or send, and the outbound
-- sender's bookkeeping (when to try next, what went wrong, when it went out).
ALTER TABLE comm_messages ADD COLUMN message_id text;
ALTER TABLE comm_messages ADD COLUMN in_reply_to text;
ALTER TABLE comm_messages ADD COLUMN reference_ids text NOT NULL DEFAULT '';
ALTER TABLE comm_messages ADD COLUMN next_attempt_at timestamptz;
ALTER TABLE comm_messages ADD COLUMN last_error text;
ALTER TABLE comm_messages ADD COLUMN sent_at timestamptz;

-- A reply names earlier Message-IDs: find their thread in one index lookup.
CREATE INDEX comm_messages_message_id ON comm_messages (message_id) WHERE message_id IS NOT NULL;

-- The sender's claim: the next due queued message.
DROP INDEX comm_messages_outbox;
CREATE INDEX comm_messages_due ON comm_messages (next_attempt_at, id) WHERE outbound_state = 'queued';
