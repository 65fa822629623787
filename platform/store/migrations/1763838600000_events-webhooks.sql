-- Up Migration
-- Events (party state changes, job ends) and their webhook deliveries: written in the same transaction as the
-- change they report (an outbox), then delivered by one Temporal workflow per delivery.
CREATE TABLE events (
  id            uuid PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces(id),
  kind          text NOT NULL,
  entry_id      uuid,
  job_id        uuid,
  payload       jsonb NOT NULL,
  at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_workspace ON events (workspace_id, at DESC);

CREATE TABLE webhook_subscriptions (
  id             uuid PRIMARY KEY,
  workspace_id   uuid NOT NULL REFERENCES workspaces(id),
  url            text NOT NULL,
  kinds          text[] NOT NULL,
  description    text,
  secret_sealed  bytea NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  disabled_at    timestamptz
);
CREATE INDEX webhook_subscriptions_workspace ON webhook_subscriptions (workspace_id) WHERE disabled_at IS NULL;

CREATE TABLE webhook_deliveries (
  id               uuid PRIMARY KEY,
  subscription_id  uuid NOT NULL REFERENCES webhook_subscriptions(id),
  event_id         uuid NOT NULL REFERENCES events(id),
  status           text NOT NULL DEFAULT 'pending',
  attempts         integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error       text,
  started_at       timestamptz,
  delivered_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, event_id)
);
CREATE INDEX webhook_deliveries_unstarted ON webhook_deliveries (created_at) WHERE started_at IS NULL;

CREATE TABLE webhook_attempts (
  delivery_id  uuid NOT NULL REFERENCES webhook_deliveries(id),
  attempt      integer NOT NULL,
  at           timestamptz NOT NULL DEFAULT now(),
  status_code  integer,
  error        text,
  duration_ms  integer NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);

-- Down Migration
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_subscriptions;
DROP TABLE events;
