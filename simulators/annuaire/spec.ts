// Request validation against the schemas of the official OpenAPI file, read at start from spec/ppf.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ANNUAIRE_SPEC_FILE = path.join(
  repoRoot,
  'spec',
  'ppf',
  'ppf-openapi-annuaire-api-public-1.11.0-openapi.json',
);

// ajv-formats is CommonJS; under ESM its default export may arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

export type BodySchema =
  | 'createLigneAnnuaireBody'
  | 'searchLigneAnnuaire'
  | 'updatePatchLigneAnnuaireBody'
  | 'updatePutLigneAnnuaireBody'
  | 'createCodeRoutageBody'
  | 'searchCodeRoutage';

export interface SpecValidators {
  /** Error messages (path: message) or [] when the body is valid. */
  check(schema: BodySchema, body: unknown): string[];
}

export function loadSpecValidators(file: string = ANNUAIRE_SPEC_FILE): SpecValidators {
  if (!fs.existsSync(file)) {
    throw new Error(
      `Annuaire simulator: the official OpenAPI file is missing (${file}); it validates requests against it`,
    );
  }
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { components: { schemas: Record<string, unknown> } };
  // OpenAPI 3.0 schemas are not quite JSON Schema: `nullable` is accepted by ajv, `example` is ignored
  // (strict off), and draft-4 boolean exclusiveMaximum/Minimum are rewritten to numbers.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'ppf-annuaire', components: { schemas: openApiToJsonSchema(doc.components.schemas) } });
  const cache = new Map<BodySchema, ValidateFunction>();
  return {
    check(name, body) {
      let v = cache.get(name);
      if (!v) cache.set(name, (v = ajv.compile({ $ref: `ppf-annuaire#/components/schemas/${name}` })));
      return v(body) ? [] : (v.errors ?? []).map(describe);
    },
  };
}

function describe(e: ErrorObject): string {
  const where = e.instancePath || '/';
  if (e.keyword === 'additionalProperties')
    return `${where}: propriété inconnue « ${String(e.params.additionalProperty)} »`;
  if (e.keyword === 'required')
    return `${where}: propriété obligatoire « ${String(e.params.missingProperty)} » absente`;
  return `${where}: ${e.message ?? e.keyword}`;
}

/** OpenAPI 3.0 schema objects → JSON Schema ajv compiles (also used by the tests checking our client's requests). */
export function openApiToJsonSchema<T>(node: T): T {
  if (Array.isArray(node)) return node.map(openApiToJsonSchema) as T;
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = openApiToJsonSchema(v);
  for (const [flag, bound] of [
    ['exclusiveMaximum', 'maximum'],
    ['exclusiveMinimum', 'minimum'],
  ] as const) {
    if (typeof out[flag] === 'boolean') {
      if (out[flag] && typeof out[bound] === 'number') {
        out[flag] = out[bound];
        delete out[bound];
      } else delete out[flag];
    }
  }
  return out as T;
}
