-- Up Migration
-- One name per concept: the mandate's tables are named after it (agreement is only its wire name in the Invopop
-- API). The rows, the keys and the references to them stay as they are; the constraints and the index follow.
ALTER TABLE agreements RENAME TO mandates;
ALTER TABLE mandates RENAME CONSTRAINT agreements_pkey TO mandates_pkey;
ALTER TABLE mandates RENAME CONSTRAINT agreements_mandate_number_key TO mandates_mandate_number_key;
ALTER TABLE mandates RENAME CONSTRAINT agreements_entry_id_fkey TO mandates_entry_id_fkey;
ALTER TABLE mandates RENAME CONSTRAINT agreements_signed_via_check TO mandates_signed_via_check;
ALTER TABLE mandates RENAME CONSTRAINT agreements_upload_evidence_check TO mandates_upload_evidence_check;
ALTER TABLE superseded_agreements RENAME TO superseded_mandates;
ALTER TABLE superseded_mandates RENAME CONSTRAINT superseded_agreements_pkey TO superseded_mandates_pkey;
ALTER TABLE superseded_mandates RENAME CONSTRAINT superseded_agreements_entry_id_fkey TO superseded_mandates_entry_id_fkey;
ALTER INDEX superseded_agreements_entry RENAME TO superseded_mandates_entry;

-- For the build before this one only: while a deploy is under way its workers and API keep running against this
-- schema (README, Deploying), and its SQL names the old tables. A view of one table, every column, is updatable
-- as the table is (SELECT … FOR UPDATE, UPDATE … FROM, INSERT … ON CONFLICT, DELETE … USING reach the table).
-- Columns added to the tables later are not in them: nothing but that build reads them. A later release's
-- migration drops both, once no build before this one runs.
CREATE VIEW agreements AS SELECT * FROM mandates;
CREATE VIEW superseded_agreements AS SELECT * FROM superseded_mandates;

-- Down Migration
DROP VIEW superseded_agreements;
DROP VIEW agreements;
ALTER INDEX superseded_mandates_entry RENAME TO superseded_agreements_entry;
ALTER TABLE superseded_mandates RENAME CONSTRAINT superseded_mandates_entry_id_fkey TO superseded_agreements_entry_id_fkey;
ALTER TABLE superseded_mandates RENAME CONSTRAINT superseded_mandates_pkey TO superseded_agreements_pkey;
ALTER TABLE superseded_mandates RENAME TO superseded_agreements;
ALTER TABLE mandates RENAME CONSTRAINT mandates_upload_evidence_check TO agreements_upload_evidence_check;
ALTER TABLE mandates RENAME CONSTRAINT mandates_signed_via_check TO agreements_signed_via_check;
ALTER TABLE mandates RENAME CONSTRAINT mandates_entry_id_fkey TO agreements_entry_id_fkey;
ALTER TABLE mandates RENAME CONSTRAINT mandates_mandate_number_key TO agreements_mandate_number_key;
ALTER TABLE mandates RENAME CONSTRAINT mandates_pkey TO agreements_pkey;
ALTER TABLE mandates RENAME TO agreements;
