-- Up Migration

-- The decision taken on the current submission (set once, compare-and-set), and the take-over identifier as it was
-- when the mandate was signed: the consent the directory step may act on.
ALTER TABLE agreements ADD COLUMN decision_id uuid;
ALTER TABLE agreements ADD COLUMN signed_former_matricule text;

-- Which entry holds the SIREN's directory line on our matricule: another entry may neither take nor end it.
CREATE TABLE directory_holdings (
  siren        text PRIMARY KEY,
  entry_id     uuid NOT NULL REFERENCES entries(id),
  id_instance  bigint,
  since        timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE directory_holdings;
ALTER TABLE agreements DROP COLUMN signed_former_matricule;
ALTER TABLE agreements DROP COLUMN decision_id;
