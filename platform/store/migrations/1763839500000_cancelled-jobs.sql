-- Up Migration
-- A job cancelled through the API: why (the journal and the job's fault take it from here, not from Temporal).
ALTER TABLE jobs ADD COLUMN cancel_reason text;
-- The mandate of a cancelled registration: kept (with its signature, if any) as evidence, but no longer in force.
ALTER TABLE agreements ADD COLUMN voided_at timestamptz;
-- The jobs page filtered by entry, newest first (and every other read of an entry's jobs).
CREATE INDEX jobs_entry_page ON jobs (silo_entry_id, created_at, id);
DROP INDEX jobs_entry;

-- Down Migration
CREATE INDEX jobs_entry ON jobs (silo_entry_id);
DROP INDEX jobs_entry_page;
ALTER TABLE agreements DROP COLUMN voided_at;
ALTER TABLE jobs DROP COLUMN cancel_reason;
