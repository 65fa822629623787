-- Up Migration
-- The platform's own secrets (PPF client secret, SML client key), sealed; they override the environment's.
CREATE TABLE platform_secrets (
  name        text PRIMARY KEY,
  sealed      bytea NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE platform_secrets;
