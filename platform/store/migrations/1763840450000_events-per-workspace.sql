-- Up Migration
-- Each workspace numbers its events in a sequence of its own (1, 2, 3…), which the events API's cursor carries: the
-- service-wide `seq` it carried before showed other workspaces' activity as gaps. The number is given at commit, by a
-- deferred trigger, under the workspace's row of event_sequences: the row is held only while the transaction
-- commits (not from its first event on), and numbers become visible in their order, without gaps. Events written in
-- one statement are numbered in the order they were written (the trigger's queue keeps it).
CREATE TABLE event_sequences (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces(id),
  last_seq     bigint NOT NULL
);
ALTER TABLE events ADD COLUMN ws_seq bigint;
UPDATE events e SET ws_seq = n.ws_seq
  FROM (SELECT id, row_number() OVER (PARTITION BY workspace_id ORDER BY seq) AS ws_seq FROM events) n
 WHERE n.id = e.id;
INSERT INTO event_sequences (workspace_id, last_seq) SELECT workspace_id, max(ws_seq) FROM events GROUP BY workspace_id;

CREATE FUNCTION number_workspace_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  INSERT INTO event_sequences AS s (workspace_id, last_seq) VALUES (NEW.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET last_seq = s.last_seq + 1
    RETURNING last_seq INTO n;
  UPDATE events SET ws_seq = n WHERE id = NEW.id;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER events_workspace_number AFTER INSERT ON events
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION number_workspace_event();

CREATE UNIQUE INDEX events_workspace_ws_seq ON events (workspace_id, ws_seq DESC);
CREATE INDEX events_entry_ws_seq ON events (entry_id, ws_seq DESC);
DROP INDEX events_workspace_seq;
DROP INDEX events_entry_seq;

-- Down Migration
CREATE INDEX events_entry_seq ON events (entry_id, seq DESC);
CREATE INDEX events_workspace_seq ON events (workspace_id, seq DESC);
DROP INDEX events_entry_ws_seq;
DROP INDEX events_workspace_ws_seq;
DROP TRIGGER events_workspace_number ON events;
DROP FUNCTION number_workspace_event();
ALTER TABLE events DROP COLUMN ws_seq;
DROP TABLE event_sequences;
