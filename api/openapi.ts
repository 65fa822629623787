// The OpenAPI 3.1 document, generated from OPERATIONS: request schemas are the very zod schemas the routers
// validate with (as their input types), responses the zod schemas of api/schemas.ts (as output types).
import { z } from 'zod';
import { idempotencyKeyParameter } from './idempotency';
import { OPERATIONS, type Operation } from './operations';
import { problem } from './schemas';

type Json = Record<string, unknown>;

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
      ...Object.entries(op.params?.shape ?? {}).map(([name, s]) => ({ name, in: 'path', required: true, schema: convert(s as z.ZodType, 'input') })),
      ...Object.entries(op.query?.shape ?? {}).map(([name, s]) => ({
        name, in: 'query', required: !(s as z.ZodType).safeParse(undefined).success, schema: convert(s as z.ZodType, 'input'),
      })),
      ...(op.method === 'post' && op.scope ? [idempotencyKeyParameter] : []), // every authenticated POST (api/idempotency.ts)
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      if (r === null) responses[status] = { description: Number(status) === 304 ? 'Not modified' : 'No content' };
      else if ('mediaType' in r && typeof r.mediaType === 'string') responses[status] = { description: 'OK', content: { [r.mediaType]: { schema: { type: 'string' } } } };
      else responses[status] = { description: 'OK', content: { 'application/json': { schema: convert(r as z.ZodType, 'output') } } };
    }
    responses.default = { description: 'An error (4xx, 5xx) as problem details', content: { 'application/problem+json': { schema: problemRef } } };
    (paths[path] ??= {})[op.method] = {
      operationId: operationId(op),
      summary: op.summary,
      tags: [op.path.split('/')[1]],
      ...(op.scope ? { security: [{ apiKey: [] }], 'x-required-scope': op.scope } : { security: [] }),
      ...(parameters.length && { parameters }),
      ...(op.body && { requestBody: { required: true, content: Object.fromEntries(
        Object.entries({ 'application/json': op.body, ...op.otherBodies }).map(([type, s]) => [type, { schema: convert(s, 'input') }]),
      ) } }),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Party registration (French e-invoicing PA)',
      version: '1',
      description: 'Each service is versioned in its path (`/<service>/v<N>/…`); adding an operation changes no version.',
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    paths,
    components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' } }, schemas: components },
  };
}

function operationId(op: Operation): string {
  const words = op.path.split('/').filter(Boolean).map((s) => (s.startsWith(':') ? `by-${s.slice(1)}` : s));
  return [op.method, ...words].join('-').replace(/[^a-zA-Z0-9]+(.)/g, (_, c: string) => c.toUpperCase());
}
