-- Up Migration
-- What a signed mandate entrusts (part 4): every address of the SIREN, or those listed. NULL for mandates signed
-- before addresses could be listed: those entrusted all of them.
ALTER TABLE agreements ADD COLUMN signed_invoicing_addresses jsonb;

-- The directory lines we hold, one per invoicing address (directory_holdings keeps one holder entry per SIREN).
CREATE TABLE directory_lines (
  address_id   text PRIMARY KEY,
  siren        text NOT NULL,
  entry_id     uuid NOT NULL REFERENCES entries(id),
  id_instance  bigint NOT NULL,
  since        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX directory_lines_by_entry ON directory_lines (entry_id);

-- Down Migration
DROP TABLE directory_lines;
ALTER TABLE agreements DROP COLUMN signed_invoicing_addresses;
