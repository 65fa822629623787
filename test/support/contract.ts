// The API tests' contract check: every response a test receives must be one the OpenAPI document declares, with
// a body that validates against the declared schema (errors against Problem).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../api/openapi';
import { errorsOf, operationFor } from '../../api/operations';
import { PROBLEM_CODES, statusesOf, type ProblemCodeName } from '../../web/http/problem-codes';

const doc = openApiDocument('http://localhost') as { paths: Record<string, Record<string, unknown>> };
const ajv = new Ajv2020({ strict: false, allErrors: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(doc as object, 'openapi');

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function validate(ref: string, body: unknown): string | undefined {
  const v = ajv.getSchema(ref);
  if (!v) return `no schema at ${ref}`;
  return v(body) ? undefined : ajv.errorsText(v.errors);
}

/** Why a response breaks the contract, or undefined when it keeps it. */
export function contractViolation(
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  body: unknown,
): string | undefined {
  const pathname = new URL(url, 'http://localhost').pathname;
  const op = operationFor(method, pathname);
  const json = /json/.test(contentType ?? '');
  if (status >= 400) {
    if (!json)
      return op && !op.path.startsWith('/reg/:ref/start') && op.path !== '/metrics'
        ? `${status} without problem+json`
        : undefined;
    const invalid = validate('openapi#/components/schemas/Problem', body);
    if (invalid || !op) return invalid;
    // The operation's reference lists the codes it answers: a client may rely on that list.
    const code = (body as { code: ProblemCodeName }).code;
    if (!statusesOf(PROBLEM_CODES[code]).includes(status))
      return `code ${code} came with ${status}, which the reference does not give it`;
    return errorsOf(op).includes(code) || op.responses[status]
      ? undefined
      : `${method} ${op.path} answered code ${code}, which its reference does not list`;
  }
  if (!op) return `${method} ${pathname} is not in the OpenAPI document`;
  const declared = op.responses[status];
  if (declared === undefined) return `${method} ${op.path} answered ${status}, which the document does not declare`;
  if (declared === null || 'mediaType' in declared) return undefined;
  return validate(
    `openapi#/${pointer('paths', op.path.replace(/:(\w+)/g, '{$1}'), op.method, 'responses', String(status), 'content', 'application/json', 'schema')}`,
    body,
  );
}
