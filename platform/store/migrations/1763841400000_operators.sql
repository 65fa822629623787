-- Up Migration
-- Two kinds of principal. Workspace API keys are the integrators'; the platform's operators (its compliance staff,
-- each a named person) alone decide on submissions. An operator's credential is shown once and stored as its
-- SHA-256, like a key's, and expires; the review page trades it for a session (its token stored the same way).
CREATE TABLE operators (
  id          uuid PRIMARY KEY,
  name        text NOT NULL,
  roles       text[] NOT NULL,              -- decide, admin (creates operators and credentials)
  created_by  uuid REFERENCES operators(id), -- NULL: the command line
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE operator_credentials (
  id             uuid PRIMARY KEY,
  operator_id    uuid NOT NULL REFERENCES operators(id),
  secret_sha256  text NOT NULL UNIQUE,
  prefix         text NOT NULL,
  created_by     uuid REFERENCES operators(id), -- NULL: the command line
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL,
  revoked_at     timestamptz
);
CREATE INDEX operator_credentials_operator ON operator_credentials (operator_id);

CREATE TABLE operator_sessions (
  token_sha256   text PRIMARY KEY,
  credential_id  uuid NOT NULL REFERENCES operator_credentials(id),
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_seen_at   timestamptz NOT NULL DEFAULT now(),
  ended_at       timestamptz
);

-- What operators did and saw (who, what, when): each decision, each view of an identity image or a mandate, each
-- operator and credential created or revoked. The platform's annual audit reads it.
CREATE TABLE operator_access_log (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  operator_id  uuid REFERENCES operators(id), -- NULL: the command line (npm run operator:create)
  action       text NOT NULL,
  entry_id     uuid,
  job_id       uuid,
  detail       jsonb NOT NULL DEFAULT '{}',
  at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX operator_access_log_operator ON operator_access_log (operator_id, id);
CREATE INDEX operator_access_log_entry ON operator_access_log (entry_id, id) WHERE entry_id IS NOT NULL;

-- A decision is an operator's from now on; decided_by keeps the API key of the decisions made before.
ALTER TABLE approval_decisions ADD COLUMN operator_id uuid REFERENCES operators(id);

-- Approving leaves the workspace scopes, and reading events and managing webhooks get scopes of their own (an
-- admin key kept both). Each key changed is recorded here, and listed when the store migrates (migrate.ts).
CREATE TABLE api_key_scope_changes (
  key_id   uuid NOT NULL REFERENCES api_keys(id),
  removed  text[] NOT NULL DEFAULT '{}',
  added    text[] NOT NULL DEFAULT '{}',
  reason   text NOT NULL,
  at       timestamptz NOT NULL DEFAULT now()
);
INSERT INTO api_key_scope_changes (key_id, removed, reason)
  SELECT id, '{approvals}'::text[], 'only the platform''s operators decide on submissions' FROM api_keys
  WHERE 'approvals' = ANY (scopes);
UPDATE api_keys SET scopes = array_remove(scopes, 'approvals') WHERE 'approvals' = ANY (scopes);
INSERT INTO api_key_scope_changes (key_id, added, reason)
  SELECT id, '{events:read,webhooks:rw}'::text[], 'events and webhooks have scopes of their own, admin no longer grants them'
  FROM api_keys WHERE 'admin' = ANY (scopes);
UPDATE api_keys SET scopes = scopes || '{events:read,webhooks:rw}'::text[] WHERE 'admin' = ANY (scopes);

-- Down Migration
UPDATE api_keys k
  SET scopes = COALESCE((SELECT array_agg(s) FROM unnest(k.scopes) s WHERE s NOT IN ('events:read', 'webhooks:rw')), '{}')
  WHERE EXISTS (SELECT 1 FROM api_key_scope_changes c WHERE c.key_id = k.id AND c.added <> '{}');
UPDATE api_keys k SET scopes = k.scopes || '{approvals}'::text[]
  WHERE EXISTS (SELECT 1 FROM api_key_scope_changes c WHERE c.key_id = k.id AND 'approvals' = ANY (c.removed));
DROP TABLE api_key_scope_changes;
ALTER TABLE approval_decisions DROP COLUMN operator_id;
DROP TABLE operator_access_log;
DROP TABLE operator_sessions;
DROP TABLE operator_credentials;
DROP TABLE operators;
