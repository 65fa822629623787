-- Up Migration
-- One running job per entry: a second registration (or an unregistration) waits until the first has ended.
CREATE UNIQUE INDEX jobs_one_active_per_entry ON jobs (silo_entry_id) WHERE completed_at IS NULL;

-- Every mandate number ever issued (an entry's current mandate is in agreements; earlier ones stay here).
CREATE TABLE mandate_numbers (
  number      text PRIMARY KEY,
  entry_id    uuid NOT NULL REFERENCES entries(id),
  job_id      uuid NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO mandate_numbers (number, entry_id, job_id) SELECT mandate_number, entry_id, job_id FROM agreements;

-- Down Migration
DROP TABLE mandate_numbers;
DROP INDEX jobs_one_active_per_entry;
