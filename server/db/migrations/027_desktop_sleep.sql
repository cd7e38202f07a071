-- Desktops asleep (issue 48): frozen by their instance's cgroup freezer after DESKTOP_IDLE_SLEEP_S without a viewer
-- or a run. One row per sleeping desktop, written by the instance that runs it and removed when it wakes or stops,
-- so that every instance's agents list, agent screen and Ops panel can say "Sleeping". A row whose instance stopped
-- beating (a crash leaves its rows) counts for nothing: readers join the instances registry.
CREATE TABLE desktop_sleep (
  agent_id integer PRIMARY KEY REFERENCES agents (id) ON DELETE CASCADE,
  instance_id text NOT NULL,
  since timestamptz NOT NULL DEFAULT now()
);
