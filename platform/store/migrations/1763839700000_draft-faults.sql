-- Up Migration
-- The problems of a party document kept invalid (PATCH with allow_invalid), apart from the faults its jobs set: a state
-- change rewrites those, and must not make an invalid draft look valid.
ALTER TABLE entries ADD COLUMN draft_faults jsonb;
UPDATE entries SET
  draft_faults = (SELECT jsonb_agg(f) FROM jsonb_array_elements(faults) f WHERE f->>'code' = 'invalid-data'),
  faults = (SELECT COALESCE(jsonb_agg(f), '[]'::jsonb) FROM jsonb_array_elements(faults) f WHERE f->>'code' IS DISTINCT FROM 'invalid-data')
WHERE faults @> '[{"code": "invalid-data"}]';

-- Down Migration
UPDATE entries SET faults = faults || draft_faults WHERE draft_faults IS NOT NULL;
ALTER TABLE entries DROP COLUMN draft_faults;
