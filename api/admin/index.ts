// admin/v1: a workspace's API keys, managed with a key of scope `admin` (the platform's staff do the same from the
// command line: npm run key:create | key:list | key:revoke). A secret is shown once, at creation; revocation is
// immediate, since every request looks its key up.
import { z } from 'zod';
import type { Db } from '../../platform/store/db';
import { SCOPES, listApiKeys } from '../../platform/store/workspaces';
import { issueKey, revokeKey } from '../../domain/workspace-keys';
import { route } from '../../web/http/route';
import * as Workspace from '../workspace-schemas';
import { auth } from '../auth';

const keyBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1, 'at least one scope')
    .max(SCOPES.length)
    .refine((s) => new Set(s).size === s.length, 'scopes must not repeat'),
});
const keyParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });

type Deps = { db: Db };

export const adminRoutes = [
  route({
    method: 'get',
    path: '/admin/v1/keys',
    operationId: 'listKeys',
    summary: "List the workspace's API keys (never their secrets)",
    description: "The workspace's API keys, their names and scopes; never their secrets.",
    scope: 'admin',
    responses: { 200: Workspace.apiKeyList },
    handle: async ({ res }, { db }: Deps) => ({ list: await listApiKeys(db, auth(res).workspaceId) }),
  }),
  route({
    method: 'post',
    path: '/admin/v1/keys',
    operationId: 'createKey',
    summary: 'Create an API key (the secret is shown once)',
    description:
      "Creates an API key with the scopes given: `entries:rw`, `jobs:rw`, `events:read` and `webhooks:rw` for an integration, `admin` for the keys. Deciding on submissions is no key's: only the platform's operators decide. Its secret is in this answer only.",
    scope: 'admin',
    body: keyBody,
    responses: { 201: Workspace.createdApiKey },
    examples: { 'a read-only follow-up': { name: 'dashboard', scopes: ['events:read'] } },
    handle: ({ body, res }, { db }: Deps) => issueKey(db, auth(res).workspaceId, body),
  }),
  route({
    method: 'delete',
    path: '/admin/v1/keys/:id',
    operationId: 'revokeKey',
    summary: 'Revoke an API key, at once',
    description: 'Revokes a key at once (a key cannot revoke itself).',
    scope: 'admin',
    params: keyParam,
    responses: { 204: null },
    errors: ['own-key'],
    handle: ({ params, res }, { db }: Deps) =>
      revokeKey(db, { workspaceId: auth(res).workspaceId, keyId: params.id, revokedBy: auth(res).keyId }),
  }),
];
