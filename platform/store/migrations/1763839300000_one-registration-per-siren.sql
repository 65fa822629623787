-- Up Migration
-- The SIREN a running registration job registers (null for other jobs): one such job per SIREN and workspace,
-- so two entries of one company cannot race to the directory. Set when the job is accepted.
ALTER TABLE jobs ADD COLUMN registers_siren text;
UPDATE jobs j SET registers_siren = e.siren
  FROM (SELECT DISTINCT ON (e.workspace_id, e.siren) j.id AS job_id, e.siren
          FROM jobs j JOIN entries e ON e.id = j.silo_entry_id
         WHERE j.completed_at IS NULL AND e.siren IS NOT NULL
           AND j.definition @> '{"steps": [{"provider": "gov-fr.directory.register"}]}'
         ORDER BY e.workspace_id, e.siren, j.created_at) e
 WHERE j.id = e.job_id;
CREATE UNIQUE INDEX jobs_one_registration_per_siren ON jobs (workspace_id, registers_siren)
  WHERE completed_at IS NULL AND registers_siren IS NOT NULL;

-- Down Migration
DROP INDEX jobs_one_registration_per_siren;
ALTER TABLE jobs DROP COLUMN registers_siren;
