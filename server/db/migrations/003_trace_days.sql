-- Cost per owner, thread name and UTC day, kept up to date by a trigger on llm_traces: the cost
-- chart sums these few rows instead of every trace (a million traces took ~0.7 s to sum).

CREATE TABLE llm_trace_days (
  owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  thread_name text NOT NULL,
  day date NOT NULL,
  cost double precision NOT NULL DEFAULT 0,
  count integer NOT NULL DEFAULT 0,
  PRIMARY KEY (owner_id, thread_name, day)
);
CREATE INDEX llm_trace_days_day ON llm_trace_days (day);

CREATE FUNCTION llm_trace_days_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE llm_trace_days SET cost = cost - OLD.estimated_cost, count = count - 1
    WHERE owner_id = OLD.owner_id AND thread_name = OLD.thread_name AND day = (OLD.created_at AT TIME ZONE 'UTC')::date;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO llm_trace_days AS d (owner_id, thread_name, day, cost, count)
    VALUES (NEW.owner_id, NEW.thread_name, (NEW.created_at AT TIME ZONE 'UTC')::date, NEW.estimated_cost, 1)
    ON CONFLICT (owner_id, thread_name, day) DO UPDATE SET cost = d.cost + EXCLUDED.cost, count = d.count + 1;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER llm_trace_days_sync AFTER INSERT OR DELETE OR UPDATE OF owner_id, thread_name, created_at, estimated_cost
  ON llm_traces FOR EACH ROW EXECUTE FUNCTION llm_trace_days_sync();

INSERT INTO llm_trace_days (owner_id, thread_name, day, cost, count)
  SELECT owner_id, thread_name, (created_at AT TIME ZONE 'UTC')::date, sum(estimated_cost), count(*)
  FROM llm_traces GROUP BY 1, 2, 3;
