-- Up Migration
-- What the Peppol Directory was last asked to index for a participant (domain/peppol/directory-card.ts, a digest of
-- what the business card shows): the next Peppol step asks it to index again when the card has changed since (a
-- company renamed, under a new mandate). NULL: not indexed, or indexed before this column (indexed again once).
ALTER TABLE peppol_participants ADD COLUMN directory_card text;

-- Down Migration
ALTER TABLE peppol_participants DROP COLUMN directory_card;
