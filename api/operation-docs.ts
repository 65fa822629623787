// What the reference says of each operation beyond its schemas: a description, request examples, and the problem
// codes it can answer (web/http/problem-codes.ts). Each area's descriptions sit beside its operations (catalogue/).
// The codes an operation shares with all others of its kind (auth, limits, validation) are added by `errorsOf`; the
// tests' contract check refuses a code an operation does not list.
import type { ProblemCodeName } from '../web/http/problem-codes';
import type { Operation, OperationDoc } from './catalogue/operation';
import { CATALOGUE } from './catalogue';

export const OPERATION_DOCS: Record<string, OperationDoc> = Object.assign({}, ...CATALOGUE.map((area) => area.docs));

/** Every code the operation can answer: its own, and those of every operation of its kind. */
export function errorsOf(op: Operation): ProblemCodeName[] {
  const doc = OPERATION_DOCS[`${op.method} ${op.path}`];
  const codes: ProblemCodeName[] = ['internal', 'rate-limited'];
  if (op.scope) codes.push('unauthenticated', 'forbidden');
  if (op.params || op.query || op.body) codes.push('invalid-request');
  if (op.params && !op.path.startsWith('/reg/')) codes.push('not-found');
  if (op.body) codes.push('malformed-json', 'unsupported-media-type', 'too-large');
  if (op.method === 'post' && op.scope)
    codes.push('idempotency-key-invalid', 'idempotency-key-reused', 'idempotency-key-in-flight');
  return [...new Set([...codes, ...(doc?.errors ?? [])])];
}
