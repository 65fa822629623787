-- Up Migration
-- The legacy interpreter `runJob` is gone. A job recorded for it and not yet started runs as a custom definition
-- does: the same steps, the same journal. The others keep their type, as history (none runs in production).
UPDATE jobs SET workflow_type = 'runDefinition' WHERE workflow_type = 'runJob' AND status = 'QUEUED';
ALTER TABLE jobs ALTER COLUMN workflow_type DROP DEFAULT;

-- Down Migration
ALTER TABLE jobs ALTER COLUMN workflow_type SET DEFAULT 'runJob';
