// silo/v1 entry credentials: what the service holds to act for a party elsewhere (seed §5: the OAuth token of a
// public invoicing portal bound to the supplier's account). Write-only secrets: sealed at rest, never returned,
// never logged; the API shows their kind and descriptive details only.
import { Router } from 'express';
import { z } from 'zod';
import type { DataBox } from '../platform/crypto/data-box';
import type { Db } from '../platform/store/db';
import { credentialView, deleteCredential, listCredentials, putCredential } from '../platform/store/credentials';
import { auth } from './auth';
import { notFound } from '../web/http/problem';
import { body, params } from '../web/http/validate';

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
export const credentialParams = z.object({
  id: z.uuid({ error: 'must be a UUID' }),
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'lowercase letters, digits, ".", "_" or "-", at most 64'),
});
export const credentialListParams = credentialParams.pick({ id: true });

const SECRET_FIELDS = ['access_token', 'refresh_token', 'key'] as const;
export const credentialContext = (entryId: string, name: string) => `credential:${entryId}:${name}`;

/** `ownEntry` is silo/v1's check that the entry exists in the caller's workspace (404 otherwise). */
export function credentialsRouter(
  db: Db,
  box: DataBox,
  ownEntry: (workspaceId: string, id: string) => Promise<unknown>,
): Router {
  const r = Router();

  r.put('/entries/:id/credentials/:name', async (req, res) => {
    const { id, name } = params(req, credentialParams);
    const input = body(req, credentialBody);
    await ownEntry(auth(res).workspaceId, id);
    const secrets = Object.fromEntries(
      SECRET_FIELDS.filter((f) => f in input).map((f) => [f, (input as Record<string, unknown>)[f]]),
    );
    const details = Object.fromEntries(
      Object.entries(input).filter(([k]) => k !== 'kind' && !(SECRET_FIELDS as readonly string[]).includes(k)),
    );
    const row = await putCredential(db, {
      workspaceId: auth(res).workspaceId,
      entryId: id,
      name,
      kind: input.kind,
      sealed: box.seal(Buffer.from(JSON.stringify(secrets)), credentialContext(id, name)),
      details,
    });
    res.json(credentialView(row));
  });

  r.get('/entries/:id/credentials', async (req, res) => {
    const { id } = params(req, credentialListParams);
    await ownEntry(auth(res).workspaceId, id);
    res.json({ list: (await listCredentials(db, id)).map(credentialView) });
  });

  r.delete('/entries/:id/credentials/:name', async (req, res) => {
    const { id, name } = params(req, credentialParams);
    await ownEntry(auth(res).workspaceId, id);
    if (!(await deleteCredential(db, id, name))) throw notFound(`credential "${name}" of entry ${id}`);
    res.status(204).end();
  });
  return r;
}
