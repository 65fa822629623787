// PATCH /silo/v1/entries/{id}: the public API's update body `{content_type, data, allow_invalid?, folder?}`, or a
// patch sent as the request's own content type. The patch formats are the libraries' (RFC 7396, RFC 6902).
import type { Request } from 'express';
import type { Operation } from 'fast-json-patch';
import { z } from 'zod';
import { rejectNulCharacters } from '../../web/http/no-nul';
import { boundedJson } from '../../web/http/bounded-json';
import {
  DOCUMENT,
  JSON_PATCH,
  MERGE_PATCH,
  UPDATE_FORMATS,
  type EntryUpdate,
  type UpdateFormat,
} from '../../domain/party/document-update';
import { coded } from '../../web/http/problem';
import { body } from '../../web/http/validate';

export { DOCUMENT, JSON_PATCH, MERGE_PATCH, UPDATE_FORMATS, type EntryUpdate, type UpdateFormat };

/** A party is a small document: a correction takes a few operations (each may copy the whole document). */
const MAX_OPERATIONS = 100;

const patchOperation = z.strictObject({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string().max(1000),
  from: z.string().max(1000).optional(),
  value: z.unknown().optional(),
});

export const mergePatchBody = z
  .record(z.string(), z.unknown())
  .describe('an RFC 7396 merge patch of the org/party document: null removes a field');
export const jsonPatchBody = z
  .array(patchOperation)
  .max(MAX_OPERATIONS, `at most ${MAX_OPERATIONS} operations`)
  .describe('RFC 6902 operations on the org/party document, applied in order, all or none');

export const updateBody = z
  .strictObject({
    content_type: z.enum(UPDATE_FORMATS, { error: `one of ${UPDATE_FORMATS.join(', ')}` }).default(DOCUMENT),
    data: z
      .unknown()
      .optional()
      .describe(
        'the whole org/party document (content_type application/json), a merge patch (an object), or JSON-patch operations (an array)',
      ),
    allow_invalid: z
      .boolean()
      .default(false)
      .describe(
        "keep a document that fails validation, its problems in the entry's faults: no registration starts until it is corrected",
      ),
    folder: z.string().trim().min(1).max(100).optional(),
    // The public API signs GOBL envelopes; a party entry is a plain document.
    sign: z
      .literal(false, { error: 'entries are party documents, not envelopes: they are never signed' })
      .optional()
      .describe(
        "accepted for the public API's clients, as false only: a party entry is never signed as a GOBL envelope",
      ),
  })
  .refine((b) => b.data !== undefined || b.folder !== undefined, {
    error: 'send data (the document or a patch) or a folder',
    path: ['data'],
  });

/** Parses the patch media types too (the router's parser reads application/json only). */
export const patchBodyParser = [boundedJson({ type: [MERGE_PATCH, JSON_PATCH] }), rejectNulCharacters];

// Names an object inherits (__proto__, constructor, hasOwnProperty…): as a key or a path segment they reach the
// libraries' own objects — the merge-patch library calls `target.hasOwnProperty`, and skips the rest of an object
// holding `__proto__`. No party field has such a name.
const INHERITED = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/** The first inherited name among the update's keys (a merge patch, a document) or its operations' paths. */
function inheritedName(data: unknown, format: UpdateFormat): string | undefined {
  if (format === JSON_PATCH) {
    const segments = (data as Operation[])
      .flatMap((op) => [op.path, 'from' in op ? op.from : ''].flatMap((p) => p.split('/')))
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
    return (
      segments.find((s) => INHERITED.has(s)) ??
      (data as Array<{ value?: unknown }>).map((op) => inheritedName(op.value, DOCUMENT)).find(Boolean)
    );
  }
  const stack: unknown[] = [data];
  while (stack.length) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    for (const [k, child] of Object.entries(v)) {
      if (INHERITED.has(k)) return k;
      stack.push(child);
    }
  }
  return undefined;
}

export function entryUpdate(req: Request): EntryUpdate {
  const own = ([MERGE_PATCH, JSON_PATCH] as const).find((t) => req.is(t));
  const update: EntryUpdate = own
    ? { format: own, data: req.body, allowInvalid: false }
    : (({ content_type, data, allow_invalid, folder }) => ({
        format: content_type,
        data,
        allowInvalid: allow_invalid,
        folder,
      }))(body(req, updateBody));
  if (update.data === undefined) return update;
  const where = own ? 'body' : 'body.data';
  if (update.format === JSON_PATCH) {
    const ops = jsonPatchBody.safeParse(update.data);
    if (!ops.success)
      throw coded(
        400,
        'invalid-request',
        `${where}: a JSON patch (RFC 6902) is an array of operations {op, path, from?, value?}`,
      );
  } else if (!update.data || typeof update.data !== 'object' || Array.isArray(update.data)) {
    throw coded(
      400,
      'invalid-request',
      `${where}: ${update.format === DOCUMENT ? 'the whole org/party document' : 'a merge patch (RFC 7396)'} must be a JSON object`,
    );
  }
  const inherited = inheritedName(update.data, update.format);
  if (inherited)
    throw coded(
      400,
      'invalid-request',
      `${where}: "${inherited}" is not a field of a party (names objects inherit are refused)`,
    );
  return update;
}
