-- Up Migration
-- What a signed mandate says of the party (its name, first address, signer), kept with its signature: a registered
-- party whose name or signer changes signs a new mandate (the address update's renewal) while this one stays in force.
ALTER TABLE agreements ADD COLUMN signed_facts jsonb;
ALTER TABLE superseded_agreements ADD COLUMN signed_facts jsonb;
-- The mandate in force of a registered party, signed before this column: until now what it says could not change
-- while registered, so the party says it still. Kept as domain/party/mandate-facts.ts writes it.
UPDATE agreements a SET signed_facts = jsonb_build_object(
    'name', e.data->'name',
    'identities[SIREN]', (SELECT i->'code' FROM jsonb_array_elements(
        CASE WHEN jsonb_typeof(e.data->'identities') = 'array' THEN e.data->'identities' ELSE '[]'::jsonb END) i
      WHERE i->>'type' = 'SIREN' LIMIT 1),
    'addresses[0]', CASE WHEN e.data->'addresses'->0 IS NULL THEN NULL ELSE jsonb_build_array(
      e.data->'addresses'->0->'num', e.data->'addresses'->0->'street', e.data->'addresses'->0->'street_extra',
      e.data->'addresses'->0->'code', e.data->'addresses'->0->'locality', e.data->'addresses'->0->'region',
      e.data->'addresses'->0->'country') END,
    'people[0].name', CASE WHEN e.data->'people'->0 IS NULL THEN NULL ELSE jsonb_build_array(
      e.data->'people'->0->'name'->'given', e.data->'people'->0->'name'->'surname') END,
    'people[0].role', e.data->'people'->0->'role',
    'people[0].identities[0].code', e.data->'people'->0->'identities'->0->'code')
  FROM entries e
  WHERE e.id = a.entry_id AND e.state = 'registered' AND a.signed_pdf IS NOT NULL AND a.signed_facts IS NULL
    AND EXISTS (SELECT 1 FROM approval_decisions d WHERE d.id = a.decision_id AND d.approved);

-- Down Migration
ALTER TABLE superseded_agreements DROP COLUMN signed_facts;
ALTER TABLE agreements DROP COLUMN signed_facts;
