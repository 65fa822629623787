-- Up Migration
-- Entries listed by state (GET /silo/v1/entries?state=error), newest first, without reading every entry's row.
CREATE INDEX entries_state_page ON entries (workspace_id, state, seq);

-- Down Migration
DROP INDEX entries_state_page;
