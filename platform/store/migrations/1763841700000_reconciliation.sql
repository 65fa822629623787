-- Up Migration
-- The nightly reconciliation (domain/reconciliation/): each run, and what runs found that differs from what we
-- believe. A finding stays open while runs keep seeing it; `runs` and `first_seen_at` say whether two runs at least
-- 12 h apart agree (the safeguard before a destructive action). One open finding per (kind, subject).
CREATE TABLE reconciliation_runs (
  id                 uuid PRIMARY KEY,
  day                date NOT NULL,              -- the directory day it compared on
  report_only        boolean NOT NULL,
  status             text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
  lines_read         integer NOT NULL DEFAULT 0,
  participants_read  integer NOT NULL DEFAULT 0,
  requests           jsonb NOT NULL DEFAULT '{}', -- requests sent, by system (annuaire, sml, dns)
  counts             jsonb NOT NULL DEFAULT '{}', -- findings seen by this run, by kind
  actions            jsonb NOT NULL DEFAULT '{}', -- what it did, by outcome
  started_at         timestamptz NOT NULL DEFAULT now(),
  finished_at        timestamptz
);
CREATE INDEX reconciliation_runs_recent ON reconciliation_runs (started_at DESC);

CREATE TABLE drift_findings (
  id             uuid PRIMARY KEY,
  kind           text NOT NULL,
  subject        text NOT NULL,                   -- an addressing identifier or a participant id
  entry_id       uuid REFERENCES entries(id),
  details        jsonb NOT NULL DEFAULT '{}',
  first_run_id   uuid NOT NULL REFERENCES reconciliation_runs(id),
  last_run_id    uuid NOT NULL REFERENCES reconciliation_runs(id),
  first_seen_at  timestamptz NOT NULL DEFAULT now(),
  last_seen_at   timestamptz NOT NULL DEFAULT now(),
  runs           integer NOT NULL DEFAULT 1,
  confirmed_by   uuid,                            -- the operator who confirmed it ahead of a second run
  confirmed_at   timestamptz,
  outcome        text,                            -- acted | reported | gone (no later run saw it)
  outcome_detail text,
  closed_at      timestamptz
);
CREATE UNIQUE INDEX drift_findings_open ON drift_findings (kind, subject) WHERE closed_at IS NULL;
CREATE INDEX drift_findings_entry ON drift_findings (entry_id);
CREATE INDEX drift_findings_recent ON drift_findings (last_seen_at DESC);

-- Which run last saw each of our lines and SML participants: what a run did not see is what it looks up.
ALTER TABLE directory_lines ADD COLUMN seen_run_id uuid;
ALTER TABLE peppol_participants ADD COLUMN seen_run_id uuid;
-- The directory's identifiers are compared whatever their case (a suffix or routing code may have letters).
CREATE INDEX directory_lines_lower ON directory_lines (lower(address_id));

-- Down Migration
DROP INDEX directory_lines_lower;
ALTER TABLE peppol_participants DROP COLUMN seen_run_id;
ALTER TABLE directory_lines DROP COLUMN seen_run_id;
DROP TABLE drift_findings;
DROP TABLE reconciliation_runs;
