-- Several servers on one PostgreSQL (issue 18): which instance runs each agent's desktop. An instance
-- announces itself (its internal address, host and pid) with a heartbeat; a lease names the one instance that
-- runs an agent's desktop, renewed with the same heartbeat and taken over once stale. A recording notes the
-- instance that records it, so that a stop or its audio reaching another instance is passed on to it.
CREATE TABLE desktop_instances (
  id text PRIMARY KEY,
  address text NOT NULL,
  host text NOT NULL,
  pid integer NOT NULL,
  desktop_host boolean NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE desktop_leases (
  agent_id integer PRIMARY KEY REFERENCES agents (id) ON DELETE CASCADE,
  instance_id text NOT NULL,
  address text NOT NULL,
  host text NOT NULL,
  pid integer NOT NULL,
  taken_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX desktop_leases_instance ON desktop_leases (instance_id);
ALTER TABLE recordings ADD COLUMN instance_id text;
-- Without INTERNAL_SECRET the instances sign their calls with one made at the first start (domain/deployment.ts).
CREATE TABLE deployment_secrets (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
