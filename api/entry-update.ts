// PATCH /silo/v1/entries/{id}: the public API's update body `{content_type, data, allow_invalid?, folder?}`, or a
// patch sent as the request's own content type. The patch formats are the libraries' (RFC 7396, RFC 6902).
import express, { type Request } from 'express';
// index.mjs: the package also ships its TypeScript sources, which tsx (allowJs) would load instead of its build.
import jsonPatch from 'fast-json-patch/index.mjs';
import type { Operation } from 'fast-json-patch';
import mergePatch from 'json-merge-patch';
import { z } from 'zod';
import { rejectNulCharacters } from './no-nul';
import { coded } from './problem';
import { body } from './validate';

export const DOCUMENT = 'application/json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';
export const UPDATE_FORMATS = [DOCUMENT, MERGE_PATCH, JSON_PATCH] as const;
export type UpdateFormat = (typeof UPDATE_FORMATS)[number];

const patchOperation = z.strictObject({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string().max(1000),
  from: z.string().max(1000).optional(),
  value: z.unknown().optional(),
});

export const mergePatchBody = z.record(z.string(), z.unknown()).describe('an RFC 7396 merge patch of the org/party document: null removes a field');
export const jsonPatchBody = z.array(patchOperation).max(1000).describe('RFC 6902 operations on the org/party document, applied in order, all or none');

export const updateBody = z.strictObject({
  content_type: z.enum(UPDATE_FORMATS, { error: `one of ${UPDATE_FORMATS.join(', ')}` }).default(DOCUMENT),
  data: z.unknown().optional().describe('the whole org/party document (content_type application/json), a merge patch (an object), or JSON-patch operations (an array)'),
  allow_invalid: z.boolean().default(false).describe('keep a document that fails validation, its problems in the entry\'s faults: no registration starts until it is corrected'),
  folder: z.string().trim().min(1).max(100).optional(),
  // The public API signs GOBL envelopes; a party entry is a plain document.
  sign: z.literal(false, { error: 'entries are party documents, not envelopes: they are never signed' }).optional(),
}).refine((b) => b.data !== undefined || b.folder !== undefined, { error: 'send data (the document or a patch) or a folder', path: ['data'] });

export interface EntryUpdate {
  format: UpdateFormat;
  /** The whole document, a merge patch or a JSON patch, as `format` says; none when only the folder moves. */
  data?: unknown;
  allowInvalid: boolean;
  folder?: string;
}

/** Parses the patch media types too (the router's parser reads application/json only). */
export const patchBodyParser = [express.json({ limit: '1mb', strict: true, type: [MERGE_PATCH, JSON_PATCH] }), rejectNulCharacters];

// Keys that would reach an object's prototype: the merge-patch library skips the rest of an object holding one (the
// JSON-patch library refuses such paths itself).
const PROTOTYPE_KEYS = /"(__proto__|constructor|prototype)"\s*:/;

export function entryUpdate(req: Request): EntryUpdate {
  const own = ([MERGE_PATCH, JSON_PATCH] as const).find((t) => req.is(t));
  const update: EntryUpdate = own
    ? { format: own, data: req.body, allowInvalid: false }
    : (({ content_type, data, allow_invalid, folder }) => ({ format: content_type, data, allowInvalid: allow_invalid, folder }))(body(req, updateBody));
  if (update.data === undefined) return update;
  const where = own ? 'body' : 'body.data';
  if (update.format === JSON_PATCH) {
    const ops = jsonPatchBody.safeParse(update.data);
    if (!ops.success) throw coded(400, 'invalid-request', `${where}: a JSON patch (RFC 6902) is an array of operations {op, path, from?, value?}`);
  } else if (!update.data || typeof update.data !== 'object' || Array.isArray(update.data)) {
    throw coded(400, 'invalid-request', `${where}: ${update.format === DOCUMENT ? 'the whole org/party document' : 'a merge patch (RFC 7396)'} must be a JSON object`);
  }
  if (PROTOTYPE_KEYS.test(JSON.stringify(update.data))) throw coded(400, 'invalid-request', `${where}: the names __proto__, constructor and prototype are not allowed`);
  return update;
}

/** The document once the update applies to `current`; a JSON patch that cannot apply is refused, naming its operation. */
export function applyUpdate(current: Record<string, unknown>, update: EntryUpdate): unknown {
  if (update.data === undefined) return current;
  if (update.format === DOCUMENT) return update.data;
  if (update.format === MERGE_PATCH) return mergePatch.apply(structuredClone(current), update.data);
  try {
    return jsonPatch.applyPatch(structuredClone(current), update.data as Operation[], true, true).newDocument;
  } catch (err) {
    if (!(err instanceof jsonPatch.JsonPatchError)) throw err;
    const op = `operation ${err.index ?? 0} (${err.operation?.op} ${err.operation?.path})`;
    // A failed `test` is the precondition RFC 6902 §4.6 gives the client: the document is not as it expected.
    if (err.name === 'TEST_OPERATION_FAILED') throw coded(409, 'patch-test-failed', `the JSON patch's ${op} failed: the entry's data has changed; read it again`);
    throw coded(422, 'patch-unappliable', `the JSON patch's ${op} cannot apply: ${err.message.split('\n')[0]}`);
  }
}
