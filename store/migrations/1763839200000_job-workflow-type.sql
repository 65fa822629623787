-- Up Migration
-- The Temporal workflow type a job runs: `registration`, `unregistration` or `runDefinition`. Jobs started before
-- run the legacy `runJob`, which journals its approval wait itself; the API records that wait's events only for
-- the others.
ALTER TABLE jobs ADD COLUMN workflow_type text NOT NULL DEFAULT 'runJob';
ALTER TABLE jobs ALTER COLUMN workflow_type DROP DEFAULT;
-- Jobs not started yet will start the new types (transform/jobs.ts, workflowTypeOf).
UPDATE jobs SET workflow_type = CASE workflow_id
    WHEN '3b67bf9e-5044-4707-9df5-2d136892ab6f' THEN 'registration'
    WHEN 'bef05d6c-0677-45fc-bbf7-88521e02425d' THEN 'unregistration'
    ELSE 'runDefinition' END
  WHERE status = 'QUEUED';

-- Down Migration
ALTER TABLE jobs DROP COLUMN workflow_type;
