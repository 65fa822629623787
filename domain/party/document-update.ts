// A correction of a party document: the whole document, an RFC 7396 merge patch or an RFC 6902 JSON patch (the
// libraries' own implementations), refused when it cannot apply or makes the document larger than a party is.
// index.mjs: the package also ships its TypeScript sources, which tsx (allowJs) would load instead of its build.
import jsonPatch from 'fast-json-patch/index.mjs';
import type { Operation } from 'fast-json-patch';
import mergePatch from 'json-merge-patch';
import { DomainError } from '../errors';
import { MAX_PARTY_BYTES } from './index';

export const DOCUMENT = 'application/json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';
export const UPDATE_FORMATS = [DOCUMENT, MERGE_PATCH, JSON_PATCH] as const;
export type UpdateFormat = (typeof UPDATE_FORMATS)[number];

export interface EntryUpdate {
  format: UpdateFormat;
  /** The whole document, a merge patch or a JSON patch, as `format` says; none when only the folder moves. */
  data?: unknown;
  allowInvalid: boolean;
  folder?: string;
}

/**
 * The document once the update applies to `current`; a JSON patch that cannot apply is refused, naming its operation.
 * The document is checked after each operation (`copy` doubles it), and its depth and characters at the end.
 */
export function applyUpdate(current: Record<string, unknown>, update: Pick<EntryUpdate, 'format' | 'data'>): unknown {
  if (update.data === undefined) return current;
  const result =
    update.format === DOCUMENT
      ? update.data
      : update.format === MERGE_PATCH
        ? applyMergePatch(structuredClone(current), update.data)
        : applyJsonPatch(structuredClone(current), update.data as Operation[]);
  assertPartySize(result);
  return result;
}

function applyMergePatch(doc: unknown, patch: unknown): unknown {
  try {
    return mergePatch.apply(doc, patch);
  } catch (err) {
    throw new DomainError(
      'patch-unappliable',
      `the merge patch cannot apply: ${String((err as Error).message).split('\n')[0]}`,
    );
  }
}

/** A party is a small document: what makes it larger (an `ext` of thousands of keys, a doubling `copy`) is refused. */
export function assertPartySize(doc: unknown, after?: string): void {
  const bytes = Buffer.byteLength(JSON.stringify(doc) ?? '');
  if (bytes > MAX_PARTY_BYTES) {
    throw new DomainError(
      'too-large',
      `the party document would be ${bytes} bytes${after ? ` after ${after}` : ''}: at most ${MAX_PARTY_BYTES}`,
      { sizeLimit: true },
    );
  }
}

function applyJsonPatch(doc: unknown, ops: Operation[]): unknown {
  for (const [index, operation] of ops.entries()) {
    const op = `operation ${index} (${operation.op} ${operation.path})`;
    try {
      doc = jsonPatch.applyOperation(doc, operation, true, true, true, index).newDocument;
    } catch (err) {
      // A failed `test` is the precondition RFC 6902 §4.6 gives the client: the document is not as it expected.
      if ((err as Error).name === 'TEST_OPERATION_FAILED')
        throw new DomainError(
          'patch-test-failed',
          `the JSON patch's ${op} failed: the entry's data has changed; read it again`,
        );
      throw new DomainError(
        'patch-unappliable',
        `the JSON patch's ${op} cannot apply: ${String((err as Error).message).split('\n')[0]}`,
      );
    }
    assertPartySize(doc, op);
  }
  return doc;
}
