-- Up Migration
-- Meta values that are secrets (the inbound Peppol migration keys, `peppol-migration-key`): sealed at rest with the
-- data encryption key (AES-256-GCM, platform/crypto/data-box.ts, bound to the entry and the meta key), the value
-- column holding them masked (each key replaced by "********", the participant ids of an object form kept). Only the
-- Peppol step opens them. Rows written in clear before this migration are sealed by the service itself, which holds
-- the key (domain/party/peppol-migration.ts sealClearMigrationKeys, run before the first request the silo/v1 API
-- serves in a process); until then the API shows them masked all the same, and the Peppol step reads them as they are.
ALTER TABLE entry_meta ADD COLUMN sealed bytea;

-- Down Migration
-- Sealed values cannot be opened here (the key is not the database's): they are dropped with their column, and the
-- rows holding only a masked value go with them (their keys must be set again).
DELETE FROM entry_meta WHERE sealed IS NOT NULL;
ALTER TABLE entry_meta DROP COLUMN sealed;
