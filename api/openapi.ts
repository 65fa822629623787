// The OpenAPI 3.1 document, generated from OPERATIONS: request schemas are the very zod schemas the routers
// validate with (as their input types), responses the zod schemas of api/schemas.ts (as output types).
import { z } from 'zod';
import { idempotencyKeyParameter } from './idempotency';
import { OPERATIONS, errorsOf } from './operations';
import { PROBLEM_CODES, statusesOf, type ProblemCodeName } from '../web/http/problem-codes';
import { problem } from './schemas';
import { problemTitle } from '../web/http/problem';
import { SESSION_COOKIE } from '../domain/operators/sessions';

type Json = Record<string, unknown>;

const OVERVIEW = `Registers French companies with this e-invoicing platform (a Plateforme Agréée): their mandate signed, in the PPF Annuaire and on Peppol.

**Onboarding a company**: create an entry with its party (\`POST /silo/v1/entries\`); start the registration (\`POST /transform/v1/jobs\` with the built-in registration's \`workflow_id\`); send the signer the wizard link in the entry's \`approval-link\` meta (or drive the signature through \`/apps/gov-fr/v1/entry/{id}/…\`); one of the platform's operators decides (\`…/decision\`, with an operator credential: integrators' keys cannot); the job ends \`OK\` and the entry is \`registered\`. Follow it by reading the entry and the job, \`GET /events/v1/events\`, or webhooks. Correct a party with \`PATCH /silo/v1/entries/{id}\`; stop a registration with \`POST /transform/v1/jobs/{id}/cancel\` (until its directory step); undo one with the built-in unregistration.

**Conventions**: every error is \`application/problem+json\` with a stable \`code\` (each operation lists those it can answer) and a \`detail\` that names the fix; bad fields are listed in \`errors\` by path. Lists page with \`limit\` and \`next_cursor\`. Every POST authenticated by an API key takes an \`Idempotency-Key\`: the same key and body within 24 hours replays the first answer. Each service is versioned in its path (\`/<service>/v<N>/…\`); adding an operation changes no version.`;

const toOpenApiPath = (p: string) => p.replace(/:(\w+)/g, '{$1}');

export function openApiDocument(serverUrl: string): Json {
  const components: Record<string, unknown> = {};
  /** A zod schema as JSON Schema 2020-12; named sub-schemas (`.meta({ id })`) go to components. */
  const convert = (schema: z.ZodType, io: 'input' | 'output'): Json => {
    const js = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
    const { $defs, $schema: _, ...rest } = js as Json & { $defs?: Record<string, unknown> };
    const rewrite = <T>(v: T): T => JSON.parse(JSON.stringify(v).replaceAll('"#/$defs/', '"#/components/schemas/'));
    for (const [id, def] of Object.entries($defs ?? {})) components[id] = rewrite(def);
    return rewrite(rest);
  };
  const problemRef = convert(problem, 'output'); // a $ref to components.schemas.Problem

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const path = toOpenApiPath(op.path);
    const parameters = [
      ...Object.entries(op.params?.shape ?? {}).map(([name, s]) => ({
        name,
        in: 'path',
        required: true,
        ...described(name, s as z.ZodType),
        schema: convert(s as z.ZodType, 'input'),
      })),
      ...Object.entries(op.query?.shape ?? {}).map(([name, s]) => ({
        name,
        in: 'query',
        required: !(s as z.ZodType).safeParse(undefined).success,
        ...described(name, s as z.ZodType),
        schema: convert(s as z.ZodType, 'input'),
      })),
      // Every authenticated POST but a streamed file's, which its own key identifies (api/idempotency.ts).
      ...(op.method === 'post' && op.scope && !(op.otherBodies && !op.body) ? [idempotencyKeyParameter] : []),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      if (r === null) responses[status] = { description: Number(status) === 304 ? 'Not modified' : 'No content' };
      else if ('mediaType' in r && typeof r.mediaType === 'string')
        responses[status] = { description: 'OK', content: { [r.mediaType]: { schema: { type: 'string' } } } };
      else
        responses[status] = {
          description: 'OK',
          content: { 'application/json': { schema: convert(r as z.ZodType, 'output') } },
        };
    }
    for (const [status, codes] of byStatus(errorsOf(op))) {
      if (responses[status]) continue; // a status the operation answers with its own body (readiness: 503)
      responses[status] = {
        description: codes.map((code) => `\`${code}\`: ${PROBLEM_CODES[code].meaning}`).join('; '),
        content: {
          'application/problem+json': {
            schema: problemRef,
            examples: Object.fromEntries(
              codes.map((code) => [
                code,
                { summary: PROBLEM_CODES[code].meaning, value: problemExample(status, code) },
              ]),
            ),
          },
        },
      };
    }
    responses.default = {
      description: 'Any other error, as problem details',
      content: { 'application/problem+json': { schema: problemRef } },
    };
    const examplesOf = (type: string) => {
      const named = op.bodyExamples?.[type] ?? (type === 'application/json' ? op.examples : undefined);
      return (
        named && {
          examples: Object.fromEntries(
            Object.entries(named).map(([name, value]) => [name.replaceAll(' ', '-'), { summary: name, value }]),
          ),
        }
      );
    };
    (paths[path] ??= {})[op.method] = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      tags: [op.path.split('/')[1]],
      ...(op.scope
        ? { security: [{ apiKey: [] }], 'x-required-scope': op.scope }
        : op.operator
          ? { security: [{ operatorCredential: [] }, { operatorSession: [] }], 'x-required-role': op.operator }
          : { security: [] }),
      ...(parameters.length && { parameters }),
      ...((op.body || op.otherBodies) && {
        requestBody: {
          required: !op.body || (op.bodyParsing !== 'optional' && !op.body.safeParse({}).success),
          content: Object.fromEntries(
            Object.entries({
              ...(op.body && { 'application/json': op.documentedBody ?? op.body }),
              ...op.otherBodies,
            }).map(([type, s]) => [type, { schema: convert(s, 'input'), ...examplesOf(type) }]),
          ),
        },
      }),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Party registration (French e-invoicing PA)',
      version: '1',
      description: OVERVIEW,
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: "Authorization: Bearer <API key> (an integrator's workspace)",
        },
        operatorCredential: {
          type: 'http',
          scheme: 'bearer',
          description: "Authorization: Bearer <operator credential> (opc_…, the platform's operators only)",
        },
        operatorSession: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description:
            "The review page's session, opened with an operator credential (POST /apps/gov-fr/v1/review/session)",
        },
      },
      schemas: components,
    },
  };
}

/** What a parameter is, by its name (the same name means the same thing in every operation). */
const PARAMETERS: Record<string, string> = {
  id: "the resource's id (a UUID)",
  key: 'your own key for the resource, as given at its creation',
  ref: "the meta row's ref (unique in a workspace)",
  silo_entry_id: "the entry's id",
  name: "the credential's name",
  view: 'the identity document face: front, back, or page (a passport)',
  siren: 'a SIREN: 9 digits',
  identifier: 'an addressing identifier of the PPF Annuaire',
  participant: 'a Peppol participant id, percent-encoded',
  doctype: 'a Peppol document type id, percent-encoded',
  limit: 'how many per page (at most 100)',
  cursor: 'the `next_cursor` of the previous page',
  ascending: '`true` for oldest first',
  folder: 'only the entries of this folder',
  owned: "accepted for the public API's clients: every lookup is scoped to the caller's workspace",
  wait: 'answer once the job ends or waits, or after this many seconds (at most 60)',
  schema: 'only the workflows of this document schema',
  lang: "the mandate's language: fr (default) or en",
  created_at: 'only those created at or before this time (ISO 8601)',
  status: 'only the jobs with this status',
  workflow_id: 'only the jobs of this workflow',
  entry_id: 'only the events of this entry',
  kind: 'only the events of these kinds (comma-separated)',
};
/** A parameter's own description first (a meta row's `key` is not an entry's), else the one of its name. */
const described = (name: string, s: z.ZodType) => {
  const description = s.description ?? PARAMETERS[name];
  return description ? { description } : {};
};

/** The codes by the status they come with. */
function byStatus(codes: ProblemCodeName[]): Map<number, ProblemCodeName[]> {
  const m = new Map<number, ProblemCodeName[]>();
  for (const code of codes)
    for (const status of statusesOf(PROBLEM_CODES[code])) m.set(status, [...(m.get(status) ?? []), code]);
  return new Map([...m].sort(([a], [b]) => a - b));
}

const problemExample = (status: number, code: ProblemCodeName) => ({
  type: 'about:blank',
  title: problemTitle(status),
  status,
  detail: `${PROBLEM_CODES[code].meaning[0]!.toUpperCase()}${PROBLEM_CODES[code].meaning.slice(1)}.`,
  code,
});
