-- Schedules (issue 10, spec §3 "Schedule"): an agent's recurring messages. Times are UTC.
-- next_run_at is stored so a scheduler tick is one index range scan, however many schedules exist.
-- 001 reserved a first sketch of this table that nothing ever wrote to (no route or code used it):
-- it is replaced, with weekdays as integer[] and checks the rules module also makes.
DROP TABLE schedules;
CREATE TABLE schedules (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  agent_id integer NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  frequency text NOT NULL CHECK (frequency IN ('daily', 'weekly', 'monthly', 'interval')),
  -- 'HH:MM' in UTC; null only for interval.
  schedule_time text CHECK (schedule_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  -- 0-6, Monday first (weekly only).
  weekdays integer[] CHECK (weekdays <@ ARRAY[0, 1, 2, 3, 4, 5, 6]),
  week_interval integer CHECK (week_interval BETWEEN 1 AND 52),
  day_of_month integer CHECK (day_of_month BETWEEN 1 AND 31),
  interval_seconds integer CHECK (interval_seconds > 0),
  message text NOT NULL,
  next_run_at timestamptz NOT NULL,
  last_run_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (frequency = 'interval' OR schedule_time IS NOT NULL),
  CHECK (frequency <> 'interval' OR interval_seconds IS NOT NULL),
  CHECK (frequency <> 'weekly' OR cardinality(weekdays) > 0),
  CHECK (frequency <> 'monthly' OR day_of_month IS NOT NULL)
);

-- The tick's "due" scan: next_run_at <= now, oldest first. (A partial index cannot name now(),
-- which is not immutable; the range scan only ever touches the due rows.)
CREATE INDEX schedules_due ON schedules (next_run_at, id);
CREATE INDEX schedules_agent ON schedules (agent_id, id);
