// Every operation of the API, as its routes declare it (web/http/route.ts): the OpenAPI document is generated from
// this list, and a test checks that it names every route the app serves. Paths carry their service and version
// (seed §9), except those whose address is set by others.
import type { RouteSpec } from '../web/http/route';
import type { ProblemCodeName } from '../web/http/problem-codes';
import { peppolRoutes } from './peppol';
import { smpRoutes } from './peppol/smp';
import { adminRoutes } from './admin';
import { eventRoutes } from './events';
import { operatorRoutes } from './operators';
import { reconciliationRoutes } from './operators/reconciliation';
import { siloRoutes } from './silo';
import { serviceRoutes } from './service';
import { govFrRoutes } from './gov-fr';
import { reviewPageRoute } from '../web/review/page-route';
import { wizardRoutes } from '../web/wizard/routes';
import { bundleRoutes } from '../web/wizard/bundle-routes';
import { transformRoutes } from './transform';
import { campaignRoutes } from './campaigns';

export const OPERATIONS: RouteSpec[] = [
  ...serviceRoutes,
  ...siloRoutes,
  ...transformRoutes,
  ...campaignRoutes,
  ...adminRoutes,
  ...eventRoutes,
  ...operatorRoutes,
  ...reconciliationRoutes,
  ...govFrRoutes,
  reviewPageRoute,
  ...peppolRoutes,
  ...smpRoutes,
  ...wizardRoutes,
  ...bundleRoutes,
];

/** Paths whose address is not ours to version: set by the seed (wizard link), by Peppol (SMP), or by convention. */
export const UNVERSIONED = /^\/(reg|smp|metrics|openapi\.json|docs|apps\/gov-fr\/review)(\/|$)/;

const MATCHERS = OPERATIONS.map((op) => ({
  op,
  re: new RegExp(`^${op.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, '[^/]+')}$`),
}));

/** The operation a request addresses (its path pattern names it in metrics and traces), if any. */
export function operationFor(method: string, pathname: string): RouteSpec | undefined {
  return MATCHERS.find((m) => m.op.method === method.toLowerCase() && m.re.test(pathname))?.op;
}

/** Every code the operation can answer: its own, and those of every operation of its kind. */
export function errorsOf(op: RouteSpec): ProblemCodeName[] {
  const codes: ProblemCodeName[] = ['internal', 'rate-limited'];
  if (op.scope || op.operator) codes.push('unauthenticated', 'forbidden');
  if (op.params || op.query || op.body) codes.push('invalid-request');
  if (op.params && !op.path.startsWith('/reg/')) codes.push('not-found');
  if (op.body) codes.push('malformed-json', 'unsupported-media-type', 'too-large');
  if (op.method === 'post' && op.scope)
    codes.push('idempotency-key-invalid', 'idempotency-key-reused', 'idempotency-key-in-flight');
  return [...new Set([...codes, ...(op.errors ?? [])])];
}
