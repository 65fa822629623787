-- Up Migration
-- A mandate replaced by a new one (a registration run again, an address update beyond the signed scope) is kept,
-- signature and decision included: it is the evidence of what the company consented to until then, and it stays
-- in force until the new one is approved (approvedMandate). Copied when the new mandate is issued.
CREATE TABLE superseded_agreements (
  mandate_number             text PRIMARY KEY,
  entry_id                   uuid NOT NULL REFERENCES entries(id),
  job_id                     uuid NOT NULL,
  issued_on                  date NOT NULL,
  signed_pdf                 bytea,
  signed_via                 text,
  signed_at                  timestamptz,
  submitted_at               timestamptz,
  decision_id                uuid,
  signed_former_matricule    text,
  signed_invoicing_addresses jsonb,
  upload_evidence            text,
  voided_at                  timestamptz,
  superseded_at              timestamptz NOT NULL DEFAULT now(),
  superseded_by              text NOT NULL     -- the mandate that replaced it
);
CREATE INDEX superseded_agreements_entry ON superseded_agreements (entry_id, superseded_at DESC);

-- A job waiting for a day (a registration's lines taking effect later, a company leaving us on a day) is in WAIT
-- until then; the API shows the day.
ALTER TABLE jobs ADD COLUMN waits_until date;

-- Down Migration
ALTER TABLE jobs DROP COLUMN waits_until;
DROP TABLE superseded_agreements;
