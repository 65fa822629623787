-- Up Migration

-- The mandate of an entry: its number (allocated by gov-fr.agreement.sign), the signed document, the submission
-- and the approval decisions. One row per entry; the decisions keep their history.
CREATE TABLE agreements (
  entry_id        uuid PRIMARY KEY REFERENCES entries(id),
  job_id          uuid NOT NULL,
  mandate_number  text NOT NULL UNIQUE,
  issued_on       date NOT NULL,
  signed_pdf      bytea,
  signed_via      text CHECK (signed_via IN ('drawn', 'typed', 'upload')),
  signed_at       timestamptz,
  submitted_at    timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- Identity document images, one per view; uploading a view again replaces it.
CREATE TABLE identity_documents (
  entry_id    uuid NOT NULL REFERENCES entries(id),
  view        text NOT NULL CHECK (view IN ('front', 'back', 'page')),
  mime        text NOT NULL,
  sha256      text NOT NULL,
  size        integer NOT NULL,
  data        bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (entry_id, view)
);

CREATE TABLE approval_decisions (
  id          uuid PRIMARY KEY,
  entry_id    uuid NOT NULL REFERENCES entries(id),
  job_id      uuid NOT NULL,
  approved    boolean NOT NULL,
  reason      text,
  decided_by  uuid,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX approval_decisions_entry ON approval_decisions (entry_id, created_at);

-- Down Migration
DROP TABLE approval_decisions;
DROP TABLE identity_documents;
DROP TABLE agreements;
