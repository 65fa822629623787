-- Up Migration
-- Credentials held for a party (the OAuth token of a public invoicing portal bound to the supplier's account, seed
-- §5): the secret part sealed (AES-256-GCM, crypto/data-box), only descriptive fields in clear.
CREATE TABLE credentials (
  id            uuid PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces(id),
  entry_id      uuid NOT NULL REFERENCES entries(id),
  name          text NOT NULL,
  kind          text NOT NULL,
  sealed        bytea NOT NULL,
  details       jsonb NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (entry_id, name)
);

-- Down Migration
DROP TABLE credentials;
