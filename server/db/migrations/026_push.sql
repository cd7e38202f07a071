-- Web Push and the help request's one-time link (issue 47). A device is one browser's push subscription: its
-- endpoint (unique: the same browser subscribing again updates its row), its keys (RFC 8291) and the events it
-- wants. An event is queued as one push_messages row per device that wants it, in the transaction that made the
-- event (webhooks/events.ts), and every instance sends what is due (SKIP LOCKED with a lease, push/sender.ts).
-- The VAPID key pair is kept sealed in deployment_secrets ('vapid').
CREATE TABLE help_links (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- SHA-256 of the token (32 random bytes, base64url), to find it by; the token itself sealed with the secrets key
  -- (system/secret-box.ts), for the push sender, which may run on another instance than the pause that made it.
  token_hash text NOT NULL UNIQUE,
  token text NOT NULL,
  thread_id integer NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX help_links_thread_id_idx ON help_links (thread_id, id DESC);
CREATE INDEX help_links_user_id_idx ON help_links (user_id);

CREATE TABLE push_subscriptions (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  endpoint text NOT NULL UNIQUE,
  p256dh text NOT NULL,
  auth text NOT NULL,
  events text[] NOT NULL,
  label text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_sent_at timestamptz
);
CREATE INDEX push_subscriptions_user_id_idx ON push_subscriptions (user_id, id DESC);

CREATE TABLE push_messages (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subscription_id integer NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
  type text NOT NULL,
  -- The event as queued for webhooks ({timestamp, data}); the notification is made from it when sent, and carries
  -- only the agent's name and the question's first 100 characters of it.
  payload jsonb NOT NULL,
  -- A help request's one-time link (the notification opens it).
  help_link_id integer REFERENCES help_links (id) ON DELETE SET NULL,
  attempt integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  next_attempt_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX push_messages_due_idx ON push_messages (next_attempt_at);
CREATE INDEX push_messages_subscription_id_idx ON push_messages (subscription_id);
CREATE INDEX push_messages_help_link_id_idx ON push_messages (help_link_id);
