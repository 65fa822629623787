-- Up Migration
-- The Temporal workflow type a job runs: `registration`, `unregistration` or `runDefinition`. Jobs recorded before
-- (and by API instances still running the code before, during a deployment) run the legacy `runJob`, which journals
-- its approval wait itself: the API records that wait's events only for the others.
ALTER TABLE jobs ADD COLUMN workflow_type text NOT NULL DEFAULT 'runJob';

-- Down Migration
ALTER TABLE jobs DROP COLUMN workflow_type;
