// Migration 1763841400000: only the platform's operators decide. Every key loses `approvals`, `admin` keys keep
// reading events and managing webhooks under the scopes now named for them, and each key changed is recorded (the
// store lists them at start, bin/context.ts). Later, campaigns get a scope of their own (1763841800000), given to
// keys with entries:rw and jobs:rw.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../platform/store/db';
import { createWorkspace, keyScopeChanges } from '../../../platform/store/workspaces';
import { migrate } from '../../../platform/store/migrate';
import { freshDb } from '../../support/harness';

const BEFORE_OPERATORS = 1763841300000;
const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;

describe.each(engines)('keys upgraded when operators arrive, on %s', (engine) => {
  let db: Db;
  let drop: () => Promise<void>;
  const keys = { integrator: crypto.randomUUID(), decider: crypto.randomUUID(), admin: crypto.randomUUID() };

  beforeAll(async () => {
    ({ db, drop } = await freshDb(engine, BEFORE_OPERATORS));
    const ws = (await createWorkspace(db, 'acme')).id;
    const scopes = {
      integrator: ['entries:rw', 'jobs:rw'],
      decider: ['approvals'],
      admin: ['entries:rw', 'approvals', 'admin'],
    };
    for (const [name, id] of Object.entries(keys))
      await db.query(
        'INSERT INTO api_keys (id, workspace_id, name, secret_sha256, prefix, scopes) VALUES ($1, $2, $3, $4, $5, $6)',
        [id, ws, name, crypto.randomBytes(32).toString('hex'), 'pak_test', scopes[name as keyof typeof scopes]],
      );
    await migrate(db);
  });
  afterAll(() => drop?.());

  it('takes approvals from every key and gives admin keys the events and webhooks scopes', async () => {
    const { rows } = await db.query<{ name: string; scopes: string[] }>(
      'SELECT name, scopes FROM api_keys ORDER BY name',
    );
    expect(Object.fromEntries(rows.map((r) => [r.name, r.scopes]))).toEqual({
      admin: ['entries:rw', 'admin', 'events:read', 'webhooks:rw'],
      decider: [],
      integrator: ['entries:rw', 'jobs:rw', 'campaigns:rw'],
    });
  });

  it('records each key it changed, and why', async () => {
    const changes = await keyScopeChanges(db);
    expect(changes.map((c) => [c.key_id, c.change])).toEqual(
      expect.arrayContaining([
        [keys.decider, 'removed approvals'],
        [keys.admin, 'removed approvals'],
        [keys.admin, 'added events:read, webhooks:rw'],
        [keys.integrator, 'added campaigns:rw'],
      ]),
    );
    expect(changes).toHaveLength(4);
    expect(changes.find((c) => c.key_id === keys.decider)!.reason).toMatch(/only the platform's operators decide/);
  });
});
