-- How many audit events are kept, per action (issue 43): /api/metrics read them by counting all of audit_events on
-- every scrape. Kept by triggers, whatever inserts or deletes the events (an append, the retention prune), once per
-- statement; an append already holds the chain's lock, so appends never race on a count.
CREATE TABLE audit_counts (
  action text PRIMARY KEY,
  n bigint NOT NULL CHECK (n >= 0)
);
INSERT INTO audit_counts (action, n) SELECT action, count(*) FROM audit_events GROUP BY action;

CREATE FUNCTION audit_count_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit_counts (action, n) SELECT action, count(*) FROM added GROUP BY action
    ON CONFLICT (action) DO UPDATE SET n = audit_counts.n + excluded.n;
  RETURN NULL;
END $$;

CREATE FUNCTION audit_count_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE audit_counts c SET n = c.n - g.k FROM (SELECT action, count(*) AS k FROM removed GROUP BY action) g WHERE c.action = g.action;
  RETURN NULL;
END $$;

CREATE TRIGGER audit_events_counted_in AFTER INSERT ON audit_events
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION audit_count_added();
CREATE TRIGGER audit_events_counted_out AFTER DELETE ON audit_events
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION audit_count_removed();
