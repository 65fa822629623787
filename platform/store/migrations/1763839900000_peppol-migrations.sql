-- Up Migration
-- Migrations of our Peppol participants to another SMP (outbound): the key we prepared at the SML (PrepareToMigrate)
-- and handed to the company once. The key is a secret: only its SHA-256 is kept, to tell which key was issued. One
-- row per participant, as the SML keeps one prepared migration per participant (preparing again replaces the key).
-- `migrated_at`: when we saw the new SMP had migrated it (our SMP record was then disabled).
CREATE TABLE peppol_migrations (
  participant_id  text PRIMARY KEY,       -- normalised: iso6523-actorid-upis::0225:<address>
  workspace_id    uuid NOT NULL REFERENCES workspaces(id),
  entry_id        uuid NOT NULL REFERENCES entries(id),
  key_sha256      text NOT NULL,
  prepared_at     timestamptz NOT NULL DEFAULT now(),
  migrated_at     timestamptz
);
CREATE INDEX peppol_migrations_entry ON peppol_migrations (workspace_id, entry_id);

-- Down Migration
DROP TABLE peppol_migrations;
