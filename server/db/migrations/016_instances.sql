-- One registry of the server instances on this database (issue 41): the runner's (runner_instances) and the desktop
-- fleet's (desktop_instances) become one, with one heartbeat per instance. An instance known to both appears once,
-- with its freshest heartbeat, its first start and what the fleet said of it (address, whether it starts desktops).
-- Runner ids are host:pid:random; a row from the runner alone takes its host and pid from its id.
CREATE TABLE instances (
  id text PRIMARY KEY,
  host text NOT NULL,
  pid integer NOT NULL,
  address text,
  desktop_host boolean NOT NULL DEFAULT false,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO instances (id, host, pid, address, desktop_host, started_at, heartbeat_at)
  SELECT id, host, pid, address, desktop_host, started_at, heartbeat_at FROM desktop_instances;
INSERT INTO instances (id, host, pid, started_at, heartbeat_at)
  SELECT id, split_part(id, ':', 1),
    CASE WHEN split_part(id, ':', 2) ~ '^[0-9]{1,9}$' THEN split_part(id, ':', 2)::integer ELSE 0 END,
    started_at, heartbeat_at
  FROM runner_instances
  ON CONFLICT (id) DO UPDATE SET heartbeat_at = GREATEST(instances.heartbeat_at, EXCLUDED.heartbeat_at),
    started_at = LEAST(instances.started_at, EXCLUDED.started_at);
DROP TABLE runner_instances;
DROP TABLE desktop_instances;
