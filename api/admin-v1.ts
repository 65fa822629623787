// admin/v1: a workspace's API keys, managed with a key of scope `admin` (the command line does the same for
// operators: npm run key:create | key:list | key:revoke). A secret is shown once, at creation; revocation is
// immediate, since every request looks its key up.
import { Router } from 'express';
import { z } from 'zod';
import { SCOPES, createApiKey, listApiKeys } from '../platform/store/workspaces';
import { revokeKey } from '../domain/workspace-keys';
import type { Db } from '../platform/store/db';
import { auth, requireScope } from './auth';
import { body, params } from '../web/http/validate';

export const keyBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1, 'at least one scope')
    .max(SCOPES.length)
    .refine((s) => new Set(s).size === s.length, 'scopes must not repeat'),
});
export const keyParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });

export function adminRouter(db: Db): Router {
  const r = Router();
  r.use(requireScope('admin'));

  r.get('/keys', async (_req, res) => {
    res.json({ list: await listApiKeys(db, auth(res).workspaceId) });
  });

  r.post('/keys', async (req, res) => {
    const b = body(req, keyBody);
    const key = await createApiKey(db, auth(res).workspaceId, { name: b.name, scopes: b.scopes });
    const view = (await listApiKeys(db, auth(res).workspaceId)).find((k) => k.id === key.id)!;
    res.status(201).json({ ...view, api_key: key.secret });
  });

  r.delete('/keys/:id', async (req, res) => {
    const { id } = params(req, keyParam);
    await revokeKey(db, { workspaceId: auth(res).workspaceId, keyId: id, revokedBy: auth(res).keyId });
    res.status(204).end();
  });

  return r;
}
