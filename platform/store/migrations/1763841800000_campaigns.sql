-- Up Migration
-- Campaigns (domain/campaigns/): a workspace's customer base from one file, checked row by row before anything is
-- written. A campaign is its workspace's by key: the client's, or `sha256:<the file's hash>`, so the same file sent
-- twice is one campaign. Rows keep the line they came from; a row's `data` is the entry it will become (the party,
-- its addresses, the signer's email): personal data, deleted with the campaign.
CREATE TABLE campaigns (
  id             uuid PRIMARY KEY,
  workspace_id   uuid NOT NULL REFERENCES workspaces(id),
  key            text NOT NULL,                 -- while uploading: `uploading:<id>`
  file_sha256    text,
  file_format    text NOT NULL CHECK (file_format IN ('csv', 'jsonl')),
  file_bytes     bigint NOT NULL DEFAULT 0,
  status         text NOT NULL DEFAULT 'uploading'
                 CHECK (status IN ('uploading', 'checking', 'checked', 'running', 'paused', 'finished', 'cancelled')),
  row_count      integer NOT NULL DEFAULT 0,
  checked_rows   integer NOT NULL DEFAULT 0,
  requests       jsonb NOT NULL DEFAULT '{}',   -- requests the dry run sent, by system (annuaire, dns)
  created_at     timestamptz NOT NULL DEFAULT now(),
  checked_at     timestamptz,
  started_at     timestamptz,
  finished_at    timestamptz,
  launched_rows  integer NOT NULL DEFAULT 0,   -- rows whose entry and registration were made
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, key)
);
CREATE INDEX campaigns_page ON campaigns (workspace_id, created_at DESC, id);

CREATE TABLE campaign_rows (
  campaign_id  uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
  line         integer NOT NULL,               -- the file's line the row starts on (the header is line 1)
  siren        text,                           -- when the row has a valid one
  data         jsonb,                          -- the row as its entry will hold it; null when it has faults
  faults       jsonb,                          -- [{column, message}]: why the row cannot be used
  verdict      text CHECK (verdict IN ('new', 'takeover', 'migrate', 'already-ours', 'blocked', 'duplicate')),
  reasons      jsonb,
  details      jsonb,                          -- the former platform, the SMPs to ask for migration keys
  checked_at   timestamptz,
  entry_id     uuid REFERENCES entries(id) ON DELETE SET NULL, -- once started: the row's entry and its registration
  job_id       uuid,
  launch_fault text,                           -- why the row could not be registered once started
  PRIMARY KEY (campaign_id, line)
);
CREATE INDEX campaign_rows_verdict ON campaign_rows (campaign_id, verdict, line);

-- One open campaign a SIREN, across workspaces: the first row to claim it in a dry run holds it until its campaign
-- ends; another row naming it is a duplicate.
CREATE TABLE campaign_sirens (
  siren        text PRIMARY KEY,
  campaign_id  uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
  line         integer NOT NULL
);
CREATE INDEX campaign_sirens_campaign ON campaign_sirens (campaign_id);

-- A campaign creates entries and starts registrations by the thousand: a scope of its own, given to the keys that
-- may do both one at a time (each recorded, and listed when the store migrates).
INSERT INTO api_key_scope_changes (key_id, added, reason)
  SELECT id, '{campaigns:rw}'::text[], 'campaigns have a scope of their own, given to keys with entries:rw and jobs:rw'
  FROM api_keys WHERE 'entries:rw' = ANY (scopes) AND 'jobs:rw' = ANY (scopes) AND revoked_at IS NULL;
UPDATE api_keys SET scopes = scopes || '{campaigns:rw}'::text[]
  WHERE 'entries:rw' = ANY (scopes) AND 'jobs:rw' = ANY (scopes) AND revoked_at IS NULL;

-- Down Migration
UPDATE api_keys SET scopes = array_remove(scopes, 'campaigns:rw') WHERE 'campaigns:rw' = ANY (scopes);
DELETE FROM api_key_scope_changes WHERE added = '{campaigns:rw}'::text[];
DROP TABLE campaign_sirens;
DROP TABLE campaign_rows;
DROP TABLE campaigns;
