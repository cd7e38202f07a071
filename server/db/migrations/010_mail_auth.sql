-- Issue 24: who really wrote an inbound mail (SPF/DKIM/DMARC, see server/mail/sender-auth.ts), and
-- why a mail did not start a run by itself ('unverified' sender or the agent's hourly 'rate').
ALTER TABLE comm_messages ADD COLUMN sender_verified boolean;
ALTER TABLE comm_messages ADD COLUMN sender_auth text;
ALTER TABLE comm_messages ADD COLUMN held_reason text CHECK (held_reason IN ('unverified', 'rate'));

-- The hourly count of runs mail started: inbound messages that were not held, newest first.
CREATE INDEX comm_messages_inbound_runs ON comm_messages (created_at) WHERE role = 'inbound' AND held_reason IS NULL;
