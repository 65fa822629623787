-- Up Migration
-- The legacy interpreter `runJob` is gone (Worker Versioning keeps a run on the code it started on). A job recorded
-- for it and not yet started runs as a custom definition does: the same steps, the same journal.
UPDATE jobs SET workflow_type = 'runDefinition' WHERE workflow_type = 'runJob';
ALTER TABLE jobs ALTER COLUMN workflow_type DROP DEFAULT;

-- Down Migration
ALTER TABLE jobs ALTER COLUMN workflow_type SET DEFAULT 'runJob';
