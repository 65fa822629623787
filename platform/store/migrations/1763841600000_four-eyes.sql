-- Up Migration
-- Four eyes (domain/review/decision-policy.ts): an approval the policy does not let settle a submission alone is a
-- first approval. It is kept with the mandate until another operator approves (the decision) or either rejects; a
-- new submission starts without one. Each approval records the policy's case that asked for two, and its version.
ALTER TABLE approval_decisions ADD COLUMN final boolean NOT NULL DEFAULT true;
ALTER TABLE approval_decisions ADD COLUMN policy_case text;
ALTER TABLE approval_decisions ADD COLUMN policy_version integer;
ALTER TABLE mandates ADD COLUMN first_approval_id uuid;

-- Down Migration
ALTER TABLE mandates DROP COLUMN first_approval_id;
ALTER TABLE approval_decisions DROP COLUMN policy_version;
ALTER TABLE approval_decisions DROP COLUMN policy_case;
ALTER TABLE approval_decisions DROP COLUMN final;
