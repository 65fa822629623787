-- Up Migration
-- What the operators' queue filters and orders on, computed once when a submission is made (domain/mandate/
-- submission-checks.ts), never fetched per card: what the submission is for, its round, the evidence of the
-- signature, the Annuaire's record then, and the day the approval wait ends. One row per entry: the checks of its
-- mandate's latest submission (mandate_number and job_id say which; a row that names another is stale).
CREATE TABLE submission_checks (
  entry_id        uuid PRIMARY KEY REFERENCES entries(id),
  job_id          uuid NOT NULL,
  mandate_number  text NOT NULL,
  purpose         text NOT NULL CHECK (purpose IN ('registration', 'renewal', 'takeover')),
  round           integer NOT NULL CHECK (round >= 1),
  evidence        text NOT NULL CHECK (evidence IN ('in-app', 'digital-signature', 'visible-signature', 'scan')),
  decide_by       timestamptz NOT NULL,
  directory       jsonb NOT NULL,
  name_matches    boolean,
  company_active  boolean,
  checked_at      timestamptz NOT NULL DEFAULT now()
);

-- The queue: the pending submissions only, oldest first.
CREATE INDEX mandates_pending ON mandates (submitted_at, entry_id)
  WHERE submitted_at IS NOT NULL AND decision_id IS NULL AND voided_at IS NULL;

-- Submissions pending before this table: what SQL can tell (the Annuaire's record is left to the review detail's
-- lookup, which records it), their deadline as the default APPROVAL_DEADLINE (30 days) from the wait's start.
INSERT INTO submission_checks (entry_id, job_id, mandate_number, purpose, round, evidence, decide_by, directory)
SELECT m.entry_id, m.job_id, m.mandate_number,
  CASE WHEN m.signed_former_matricule IS NOT NULL THEN 'takeover'
       WHEN e.state = 'registered' THEN 'renewal' ELSE 'registration' END,
  1 + (SELECT count(*) FROM approval_decisions d WHERE d.entry_id = m.entry_id AND d.job_id = m.job_id),
  CASE WHEN m.signed_via = 'upload' THEN COALESCE(m.upload_evidence, 'scan') ELSE 'in-app' END,
  COALESCE((SELECT min(i.created_at) FROM job_intents i JOIN job_events ev ON ev.job_id = i.job_id AND ev.step_id = i.step_id
            WHERE i.job_id = m.job_id AND ev.code = 'submitted'), m.submitted_at) + interval '30 days',
  '{"outcome": "unchecked", "reason": "submitted before the checks were recorded"}'::jsonb
FROM mandates m JOIN entries e ON e.id = m.entry_id
WHERE m.submitted_at IS NOT NULL AND m.decision_id IS NULL AND m.voided_at IS NULL;

-- Down Migration
DROP INDEX mandates_pending;
DROP TABLE submission_checks;
