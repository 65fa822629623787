-- Up Migration
-- The addresses a directory step's first plan took over from another platform, kept before its first write: once
-- handed over, another platform's line no longer shows in the directory (ended on the switch day, or masked), so a
-- retry of the step reads its targets here and finishes the same take-over. One row per job step; company
-- identifiers only (SIREN, SIRET, routing codes, suffixes), no personal data.
CREATE TABLE directory_step_targets (
  job_id          uuid NOT NULL,
  step_id         text NOT NULL,
  targets         jsonb NOT NULL,
  taken_over_from text,
  planned_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, step_id)
);

-- Down Migration
DROP TABLE directory_step_targets;
