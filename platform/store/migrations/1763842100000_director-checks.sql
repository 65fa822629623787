-- Up Migration
-- Each submission's checks gain whether the signer is among the company's directors (the public register's), and the
-- evidence of the signature in detail (drawn or typed, a certificate and whom it names). `signer_result` is what the
-- queue filters on. Submissions recorded before say they were not checked.
ALTER TABLE submission_checks
  ADD COLUMN signer_check jsonb NOT NULL
    DEFAULT '{"result": "unavailable", "code": "not-checked", "reason": "submitted before the director check was recorded"}',
  ADD COLUMN signer_result text GENERATED ALWAYS AS (signer_check->>'result') STORED,
  ADD COLUMN signature jsonb;
ALTER TABLE submission_checks ALTER COLUMN signer_check DROP DEFAULT;

-- An automatic decision names the policy's rule that made it and the facts it read (the checks, as they were), and
-- until when an operator may overturn it (the registration runs on then). An operator's rejection overturning one
-- names it.
ALTER TABLE approval_decisions ADD COLUMN policy_rule text, ADD COLUMN inputs jsonb, ADD COLUMN hold_until timestamptz,
  ADD COLUMN overturns uuid REFERENCES approval_decisions(id);

-- Down Migration
ALTER TABLE approval_decisions DROP COLUMN overturns, DROP COLUMN hold_until, DROP COLUMN inputs, DROP COLUMN policy_rule;
ALTER TABLE submission_checks DROP COLUMN signature, DROP COLUMN signer_result, DROP COLUMN signer_check;
