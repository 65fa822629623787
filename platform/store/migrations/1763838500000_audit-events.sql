-- Up Migration
-- The signing audit trail of an entry: what happened, when, from where. Also printed on the mandate's last page.
CREATE TABLE audit_events (
  id          bigserial PRIMARY KEY,
  entry_id    uuid NOT NULL REFERENCES entries(id),
  job_id      uuid,
  kind        text NOT NULL,
  at          timestamptz NOT NULL DEFAULT now(),
  ip          text,
  user_agent  text,
  details     jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_entry ON audit_events (entry_id, id);

-- Down Migration
DROP TABLE audit_events;
