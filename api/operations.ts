// Every operation of the API, with the zod schemas its router validates requests with and the schemas of its
// responses, gathered from each area's catalogue (catalogue/): the OpenAPI document is generated from this list, and
// a test checks that it names every route the app serves. Paths carry their service and version (seed §9), except
// those whose address is set by others.
import { CATALOGUE } from './catalogue';
import type { Operation } from './catalogue/operation';

export const OPERATIONS: Operation[] = CATALOGUE.flatMap((area) => area.operations);

/** Paths whose address is not ours to version: set by the seed (wizard link), by Peppol (SMP), or by convention. */
export const UNVERSIONED = /^\/(reg|smp|metrics|openapi\.json|docs|apps\/gov-fr\/review)(\/|$)/;

const MATCHERS = OPERATIONS.map((op) => ({
  op,
  re: new RegExp(`^${op.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, '[^/]+')}$`),
}));

/** The operation a request addresses (its path pattern names it in metrics and traces), if any. */
export function operationFor(method: string, pathname: string): Operation | undefined {
  return MATCHERS.find((m) => m.op.method === method.toLowerCase() && m.re.test(pathname))?.op;
}
