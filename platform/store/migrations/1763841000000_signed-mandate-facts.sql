-- Up Migration
-- What a signed mandate says of the party (its name, first address, signer), kept with its signature: a registered
-- party whose name or signer changes signs a new mandate (the address update's renewal) while this one stays in force.
-- Mandates signed before this column are not compared (their facts were not kept).
ALTER TABLE agreements ADD COLUMN signed_facts jsonb;
ALTER TABLE superseded_agreements ADD COLUMN signed_facts jsonb;

-- Down Migration
ALTER TABLE superseded_agreements DROP COLUMN signed_facts;
ALTER TABLE agreements DROP COLUMN signed_facts;
