-- Up Migration
-- Idempotency-Key on the API's POSTs (issue 21, point 6): the first answer to a key, kept per workspace for 24 hours
-- so that a retry replays it. The primary key is what makes a claim safe across API replicas (INSERT … ON CONFLICT):
-- while the first request runs, completed_at is null and a second one is refused. A 5xx answer deletes the row.
CREATE TABLE idempotency_keys (
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  key             text NOT NULL,
  -- SHA-256 of the method, URL and canonical JSON body: the same key for another request is refused
  request_sha256  text NOT NULL,
  -- the request holding the key: only it completes or releases the row
  claim           uuid NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  completed_at    timestamptz,
  status          smallint,
  headers         jsonb,
  -- the answer's body, sealed like other data at rest (some answers show a secret once: a new API key)
  body_sealed     bytea,
  PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

-- Down Migration
DROP TABLE idempotency_keys;
