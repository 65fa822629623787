-- Up Migration

-- Our SMP records: one row per (participant, entry). A participant id is enabled for at most one entry in the
-- whole service (the SML routes it to our single SMP); disabled rows stay as history.
CREATE TABLE peppol_participants (
  participant_id        text NOT NULL,          -- normalised: iso6523-actorid-upis::0225:<siren>
  workspace_id          uuid NOT NULL REFERENCES workspaces(id),
  entry_id              uuid NOT NULL REFERENCES entries(id),
  doc_groups            text[] NOT NULL,
  visibility            text NOT NULL CHECK (visibility IN ('smp', 'smp+sml', 'smp+sml+peppol')),
  directory             boolean NOT NULL,
  enabled               boolean NOT NULL DEFAULT true,
  sml_registered        boolean NOT NULL DEFAULT false,
  directory_registered  boolean NOT NULL DEFAULT false,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  disabled_at           timestamptz,
  PRIMARY KEY (participant_id, entry_id)
);
CREATE UNIQUE INDEX peppol_participants_enabled ON peppol_participants (participant_id) WHERE enabled;
CREATE INDEX peppol_participants_entry ON peppol_participants (workspace_id, entry_id);

-- Down Migration
DROP TABLE peppol_participants;
