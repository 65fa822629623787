// silo/v1 entry credentials: write-only secrets the service holds for a party (domain/party/credentials.ts).
import { z } from 'zod';
import type { DataBox } from '../../platform/crypto/data-box';
import type { Db } from '../../platform/store/db';
import { credentialsOf, removeCredential, storeCredential } from '../../domain/party/credentials';
import { route } from '../../web/http/route';
import * as Workspace from '../workspace-schemas';
import { auth } from '../auth';
import { ownEntry } from './own-entry';

const secret = z.string().min(1).max(8000);
const describing = { account: z.string().max(255).optional(), portal: z.string().max(255).optional() };
export const credentialBody = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('oauth-token'),
    access_token: secret,
    refresh_token: secret.optional(),
    token_type: z.string().max(40).optional(),
    expires_at: z.iso.datetime({ offset: true }).optional(),
    scope: z.string().max(1000).optional(),
    ...describing,
  }),
  z.strictObject({ kind: z.literal('api-key'), key: secret, ...describing }),
]);
const credentialParams = z.object({
  id: z.uuid({ error: 'must be a UUID' }),
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'lowercase letters, digits, ".", "_" or "-", at most 64'),
});
const credentialListParams = credentialParams.pick({ id: true });

type Deps = { db: Db; box: DataBox };

export const credentialRoutes = [
  route({
    method: 'put',
    path: '/silo/v1/entries/:id/credentials/:name',
    operationId: 'putCredential',
    summary: "Store a credential for the party (e.g. a portal's OAuth token); write-only",
    description: 'Stores a secret for the party, encrypted at rest; never returned (only its kind and details).',
    scope: 'entries:rw',
    params: credentialParams,
    body: credentialBody,
    responses: { 200: Workspace.credential },
    examples: { 'an API key': { kind: 'api-key', key: 'sk_live_…', portal: 'erp.example.com', account: 'ACME-001' } },
    handle: async ({ params, body, res }, deps: Deps) => {
      await ownEntry(deps.db, auth(res).workspaceId, params.id);
      return storeCredential(deps, auth(res).workspaceId, params.id, params.name, body);
    },
  }),
  route({
    method: 'get',
    path: '/silo/v1/entries/:id/credentials',
    operationId: 'listCredentials',
    summary: "The party's stored credentials, without their secrets",
    description: "The party's stored credentials, without their secrets.",
    scope: 'entries:rw',
    params: credentialListParams,
    responses: { 200: Workspace.credentialList },
    handle: async ({ params, res }, { db }: Deps) => {
      await ownEntry(db, auth(res).workspaceId, params.id);
      return { list: await credentialsOf(db, params.id) };
    },
  }),
  route({
    method: 'delete',
    path: '/silo/v1/entries/:id/credentials/:name',
    operationId: 'deleteCredential',
    summary: 'Remove a stored credential',
    description: 'Removes a stored credential.',
    scope: 'entries:rw',
    params: credentialParams,
    responses: { 204: null },
    handle: async ({ params, res }, { db }: Deps) => {
      await ownEntry(db, auth(res).workspaceId, params.id);
      await removeCredential(db, params.id, params.name);
    },
  }),
];
