// The service's own operations: ping and health, metrics, and this reference.
import * as R from '../schemas';
import type { Operation, OperationDoc } from './operation';

export const operations: Operation[] = [
  { method: 'get', path: '/utils/v1/ping', summary: 'Ping', responses: { 200: R.ping } },
  { method: 'get', path: '/utils/v1/health/live', summary: 'Liveness', responses: { 200: R.live } },
  {
    method: 'get',
    path: '/utils/v1/health/ready',
    summary: 'Readiness: database and Temporal reachable',
    responses: { 200: R.ready, 503: R.ready },
  },
  { method: 'get', path: '/metrics', summary: 'Prometheus metrics', responses: { 200: { mediaType: 'text/plain' } } },
  {
    method: 'get',
    path: '/docs/',
    summary: 'This reference, interactive (HTML)',
    responses: { 200: { mediaType: 'text/html' } },
  },
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    responses: { 200: { mediaType: 'application/json' } },
  },
];

export const docs: Record<string, OperationDoc> = {
  'get /utils/v1/ping': { description: 'Answers `{"ping":"pong"}` without a key: the service is up and reachable.' },
  'get /utils/v1/health/live': { description: "The process is alive (for an orchestrator's liveness probe)." },
  'get /utils/v1/health/ready': {
    description:
      'The database and Temporal answer: 200 when both do, 503 with the failing one otherwise (readiness probe).',
  },
  'get /metrics': { description: 'Prometheus metrics (with `METRICS_TOKEN`, as a bearer token).' },
  'get /docs/': { description: 'This reference, interactive.' },
  'get /openapi.json': {
    description: 'This document: OpenAPI 3.1, generated from the schemas the API validates with.',
  },
};
