// silo/v1: party entries and their meta rows.
import type { Config } from '../platform/config';
import crypto from 'node:crypto';
import { Router } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { assertCallerMeta, callerMeta, createPartyEntry } from '../domain/party/entries';
import { migrationKeysSealed, PEPPOL_MIGRATION_KEY_META, putMigrationKeyMeta } from '../domain/party/peppol-migration';
import type { DataBox } from '../platform/crypto/data-box';
import type { Db } from '../platform/store/db';
import { credentialsRouter } from './credentials';
import { metaValueInput } from './schemas';
import { getEntry, getEntryByKey, getEntryRow, listEntries } from '../platform/store/entries';
import { deleteMeta, getMeta, getMetaByRef, putMeta } from '../platform/store/entry-meta';
import { decodeCursor } from '../platform/store/rows';
import { auth, requireScope } from './auth';
import { notFound } from '../web/http/problem';
import { body, params, query } from '../web/http/validate';
import { entryUpdate, patchBodyParser } from './entry-update';
import { applyUpdate } from '../domain/party/document-update';
import { assertStorable } from '../web/http/no-nul';
import { changeParty } from '../domain/submission/party-change';

export const entryBody = z.strictObject({
  data: z.record(z.string(), z.unknown(), { error: 'data must be a GOBL org/party object' }),
  key: z.string().trim().min(1).max(255).optional(),
  folder: z.string().trim().min(1).max(100).optional(),
});

export const idParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });
export const keyParam = z.object({ key: z.string().min(1).max(255) });
export const metaParams = z.object({
  id: z.uuid({ error: 'must be a UUID' }),
  key: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'lowercase letters, digits, ".", "_" or "-", at most 64'),
});

export const metaRefParams = z.object({ key: metaParams.shape.key, ref: z.string().min(1).max(255) });
// The public API's lookup takes `owned=true` to scope it to the caller's workspace: here every lookup is.
export const metaRefQuery = z.strictObject({ owned: z.enum(['true', 'false']).optional() });

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100, 'at most 100').default(20),
  cursor: z
    .string()
    .max(200)
    .refine((c) => decodeCursor(c) !== undefined, 'not a cursor from a previous page')
    .optional(),
  ascending: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  folder: z.string().max(100).optional(),
});

export const metaBody = z.strictObject({
  src: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/)
    .default('api'),
  ref: z.string().trim().min(1).max(255).optional(),
  value: metaValueInput.optional(),
  link_url: z.url().max(2000).optional(),
  link_scope: z.enum(['public', 'private']).optional(),
  indexed: z.boolean().optional(),
  shared: z.boolean().optional(),
});

export function entriesRouter({
  db,
  box,
  log,
  config,
}: {
  db: Db;
  box: DataBox;
  log: Logger;
  config: Pick<Config, 'PA_MATRICULE'>;
}): Router {
  const r = Router();
  r.use(requireScope('entries:rw'));
  // Migration keys written in clear by an earlier version are sealed before the first request is served.
  r.use(async (_req, _res, next) => {
    await migrationKeysSealed(db, box, log);
    next();
  });
  const ownEntry = async (workspaceId: string, id: string) => {
    const row = await getEntryRow(db, workspaceId, id);
    if (!row) throw notFound(`entry ${id}`);
    return row;
  };
  r.use(credentialsRouter(db, box, ownEntry));

  const create = (workspaceId: string, id: string, input: z.infer<typeof entryBody>) =>
    createPartyEntry(db, workspaceId, id, input);
  const storable = (doc: unknown) => {
    assertStorable(doc, 'data');
    return doc;
  };

  r.post('/entries', async (req, res) => {
    res.status(200).json(await create(auth(res).workspaceId, crypto.randomUUID(), body(req, entryBody)));
  });

  r.put('/entries/:id', async (req, res) => {
    const { id } = params(req, idParam);
    res.status(200).json(await create(auth(res).workspaceId, id, body(req, entryBody)));
  });

  // A correction: a whole document, a merge patch or a JSON patch, checked against the mandate (domain/submission/party-change.ts).
  r.patch('/entries/:id', ...patchBodyParser, async (req, res) => {
    const { id } = params(req, idParam);
    const update = entryUpdate(req);
    res.json(
      await changeParty({ db, log }, auth(res).workspaceId, id, {
        apply: (current) => storable(applyUpdate(current, update)),
        allowInvalid: update.allowInvalid,
        folder: update.folder,
      }),
    );
  });

  r.get('/entries', async (req, res) => {
    const q = query(req, listQuery);
    const page = await listEntries(db, auth(res).workspaceId, q);
    res.json({ limit: q.limit, ...(q.cursor && { cursor: q.cursor }), ...(q.folder && { folder: q.folder }), ...page });
  });

  r.get('/entries/key/:key', async (req, res) => {
    const { key } = params(req, keyParam);
    const entry = await getEntryByKey(db, auth(res).workspaceId, key);
    if (!entry) throw notFound(`entry with key "${key}"`);
    res.json(entry);
  });

  r.get('/entries/:id', async (req, res) => {
    const { id } = params(req, idParam);
    const entry = await getEntry(db, auth(res).workspaceId, id);
    if (!entry) throw notFound(`entry ${id}`);
    res.json(entry);
  });

  // Before the routes under /entries/:id: "meta" is not an entry id.
  r.get('/entries/meta/:key/:ref', async (req, res) => {
    const { key, ref } = params(req, metaRefParams);
    query(req, metaRefQuery);
    const meta = await getMetaByRef(db, auth(res).workspaceId, key, ref);
    if (!meta) throw notFound(`meta "${key}" with ref "${ref}"`);
    res.json(meta);
  });

  r.put('/entries/:id/meta/:key', async (req, res) => {
    const { id, key } = params(req, metaParams);
    const input = body(req, metaBody);
    const entry = await ownEntry(auth(res).workspaceId, id);
    const meta = callerMeta(key, input, entry.siren, config.PA_MATRICULE);
    // A migration key is a secret: sealed, answered masked (domain/party/peppol-migration.ts).
    res.json(
      key === PEPPOL_MIGRATION_KEY_META
        ? await putMigrationKeyMeta({ db, box }, entry, meta)
        : await putMeta(db, id, key, meta),
    );
  });

  r.get('/entries/:id/meta/:key', async (req, res) => {
    const { id, key } = params(req, metaParams);
    await ownEntry(auth(res).workspaceId, id);
    const meta = await getMeta(db, id, key);
    if (!meta) throw notFound(`meta "${key}" of entry ${id}`);
    res.json(meta);
  });

  r.delete('/entries/:id/meta/:key', async (req, res) => {
    const { id, key } = params(req, metaParams);
    await ownEntry(auth(res).workspaceId, id);
    assertCallerMeta(key);
    if (!(await deleteMeta(db, id, key))) throw notFound(`meta "${key}" of entry ${id}`);
    res.status(204).end();
  });

  return r;
}
