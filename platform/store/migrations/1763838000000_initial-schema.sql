-- Up Migration

CREATE TABLE workspaces (
  id          uuid PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- API keys are stored as SHA-256 of the secret: the secret itself is shown once, at creation.
CREATE TABLE api_keys (
  id            uuid PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces(id),
  name          text NOT NULL,
  secret_sha256 text NOT NULL UNIQUE,
  prefix        text NOT NULL,
  scopes        text[] NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  revoked_at    timestamptz
);

CREATE TABLE entries (
  id            uuid PRIMARY KEY,
  seq           bigint GENERATED ALWAYS AS IDENTITY UNIQUE, -- insertion order, for cursor pagination
  workspace_id  uuid NOT NULL REFERENCES workspaces(id),
  key           text,
  folder        text,
  doc_schema    text NOT NULL,
  data          jsonb NOT NULL,
  siren         text,
  state         text,
  faults        jsonb NOT NULL DEFAULT '[]',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, key)
);
CREATE INDEX entries_page ON entries (workspace_id, seq);
CREATE INDEX entries_siren ON entries (workspace_id, siren);

-- Every state change, kept: silo.state is the only writer. (job_id, step_id) makes a retried step a no-op.
CREATE TABLE entry_states (
  id          bigserial PRIMARY KEY,
  entry_id    uuid NOT NULL REFERENCES entries(id),
  state       text NOT NULL,
  job_id      uuid,
  step_id     text,
  faults      jsonb NOT NULL DEFAULT '[]',
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (job_id, step_id)
);
CREATE INDEX entry_states_entry ON entry_states (entry_id, id);

CREATE TABLE entry_meta (
  entry_id    uuid NOT NULL REFERENCES entries(id),
  key         text NOT NULL,
  src         text NOT NULL,
  ref         text UNIQUE,
  value       jsonb,
  link_url    text,
  link_scope  text,
  indexed     boolean NOT NULL DEFAULT false,
  shared      boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (entry_id, key)
);

CREATE TABLE workflows (
  workspace_id  uuid NOT NULL REFERENCES workspaces(id),
  id            uuid NOT NULL,
  name          text NOT NULL,
  description   text,
  doc_schema    text NOT NULL,
  steps         jsonb NOT NULL,
  rescue        jsonb NOT NULL,
  version       integer NOT NULL DEFAULT 1,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX workflows_page ON workflows (workspace_id, created_at, id);

-- A job keeps the definition it started with: later edits of the workflow do not change running jobs.
CREATE TABLE jobs (
  id            uuid PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces(id),
  key           text,
  workflow_id   uuid NOT NULL,
  silo_entry_id uuid NOT NULL REFERENCES entries(id),
  definition    jsonb NOT NULL,
  args          jsonb NOT NULL DEFAULT '{}',
  tags          text[] NOT NULL DEFAULT '{}',
  status        text NOT NULL,
  faults        jsonb NOT NULL DEFAULT '[]',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  completed_at  timestamptz,
  UNIQUE (workspace_id, key)
);
CREATE INDEX jobs_page ON jobs (workspace_id, created_at, id);
CREATE INDEX jobs_entry ON jobs (silo_entry_id);

-- One intent per step run; its events are appended with an index so a replayed write is a no-op.
CREATE TABLE job_intents (
  job_id      uuid NOT NULL REFERENCES jobs(id),
  step_id     text NOT NULL,
  position    integer NOT NULL,
  name        text NOT NULL,
  provider    text NOT NULL,
  completed   boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, step_id)
);

CREATE TABLE job_events (
  job_id      uuid NOT NULL,
  step_id     text NOT NULL,
  idx         integer NOT NULL,
  status      text NOT NULL,
  code        text,
  message     text,
  at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, step_id, idx),
  FOREIGN KEY (job_id, step_id) REFERENCES job_intents(job_id, step_id)
);

-- Down Migration
DROP TABLE job_events;
DROP TABLE job_intents;
DROP TABLE jobs;
DROP TABLE workflows;
DROP TABLE entry_meta;
DROP TABLE entry_states;
DROP TABLE entries;
DROP TABLE api_keys;
DROP TABLE workspaces;
