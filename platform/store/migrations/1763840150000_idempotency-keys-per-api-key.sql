-- Up Migration
-- An Idempotency-Key belongs to the API key that sent it, not to its workspace: another key of the workspace sending
-- the same header must run its own request (with its own scopes), never be handed the first one's answer (some
-- answers show a secret once: a new API key, a migration key). Rows kept before this bound no key: they are dropped,
-- so a retry spanning the upgrade runs again (at worst a duplicate that its own idempotent handling resolves, as a
-- retry without a key would).
DELETE FROM idempotency_keys;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD COLUMN api_key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (api_key_id, key);

-- Down Migration
DELETE FROM idempotency_keys;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys DROP COLUMN api_key_id;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (workspace_id, key);
