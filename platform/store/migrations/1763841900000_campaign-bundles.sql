-- Up Migration
-- One signature for many companies (a group's subsidiaries, an accounting firm's clients): when a campaign starts,
-- its rows to register that name the same signer (given name, surname and email, case, accents and blanks aside:
-- signer_key, their hash, set as the file is read) form a bundle, whose link opens one wizard session for all of
-- them: the signer's details and identity document once, then each company's mandate read and signed on its own.
-- The ref is that link's credential (244 random bits), unique service-wide.
CREATE TABLE campaign_bundles (
  id           uuid PRIMARY KEY,
  campaign_id  uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
  ref          text NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX campaign_bundles_campaign ON campaign_bundles (campaign_id);

ALTER TABLE campaign_rows ADD COLUMN signer_key text;
ALTER TABLE campaign_rows ADD COLUMN bundle_id uuid REFERENCES campaign_bundles(id) ON DELETE SET NULL;
CREATE INDEX campaign_rows_bundle ON campaign_rows (bundle_id, line) WHERE bundle_id IS NOT NULL;
CREATE INDEX campaign_rows_entry ON campaign_rows (entry_id) WHERE entry_id IS NOT NULL;

-- A cancelled campaign no longer holds its key: the same file (or key) sent again makes a new campaign, judged anew
-- (how an integrator corrects a campaign: cancel it, send the file again).
ALTER TABLE campaigns DROP CONSTRAINT campaigns_workspace_id_key_key;
CREATE UNIQUE INDEX campaigns_key ON campaigns (workspace_id, key) WHERE status <> 'cancelled';

-- Down Migration
DROP INDEX campaigns_key;
ALTER TABLE campaigns ADD CONSTRAINT campaigns_workspace_id_key_key UNIQUE (workspace_id, key);
DROP INDEX campaign_rows_entry;
DROP INDEX campaign_rows_bundle;
ALTER TABLE campaign_rows DROP COLUMN bundle_id;
ALTER TABLE campaign_rows DROP COLUMN signer_key;
DROP TABLE campaign_bundles;
