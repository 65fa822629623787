-- Up Migration
-- Events in the order they were written: a statement writes several at the same time (a cancellation: the state,
-- then the job's end), and a page must list them in that order, and page without missing or repeating any.
ALTER TABLE events ADD COLUMN seq bigserial;
CREATE INDEX events_workspace_seq ON events (workspace_id, seq DESC);
CREATE INDEX events_entry_seq ON events (entry_id, seq DESC);
DROP INDEX events_workspace;

-- Down Migration
CREATE INDEX events_workspace ON events (workspace_id, at DESC);
DROP INDEX events_entry_seq;
DROP INDEX events_workspace_seq;
ALTER TABLE events DROP COLUMN seq;
