// The service's own operations, without a key: ping; liveness and readiness (live says the process answers; ready
// says it can do its work — the database and Temporal both reachable within a second; load balancers and
// orchestrators poll these); metrics; and this reference (the OpenAPI document and Swagger UI, served by us).
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import express from 'express';
import type { Client } from '@temporalio/client';
import type { Db } from '../platform/store/db';
import { ping } from '../platform/store/db';
import type { Config } from '../platform/config';
import { route } from '../web/http/route';
import * as R from './schemas';
import { metricsEndpoint } from './metrics-endpoint';

const DOCS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'docs');
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const TIMEOUT_MS = 1_000;

async function probe(check: () => Promise<unknown>): Promise<'ok' | string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS)),
      ),
    ]);
    return 'ok';
  } catch (err) {
    return (err as Error).message.split('\n')[0] || 'failed';
  } finally {
    clearTimeout(timer);
  }
}

type Deps = { db: Db; temporal: Client; config: Pick<Config, 'METRICS_TOKEN'>; contract: () => string };

const docsCsp = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";

export const serviceRoutes = [
  route({
    method: 'get',
    path: '/utils/v1/ping',
    operationId: 'ping',
    summary: 'Ping',
    description: 'Answers `{"ping":"pong"}` without a key: the service is up and reachable.',
    responses: { 200: R.ping },
    handle: async () => ({ ping: 'pong' }),
  }),
  route({
    method: 'get',
    path: '/utils/v1/health/live',
    operationId: 'live',
    summary: 'Liveness',
    description: "The process is alive (for an orchestrator's liveness probe).",
    responses: { 200: R.live },
    handle: async ({ res }) => void res.set('cache-control', 'no-store').json({ status: 'ok' }),
  }),
  route({
    method: 'get',
    path: '/utils/v1/health/ready',
    operationId: 'ready',
    summary: 'Readiness: database and Temporal reachable',
    description:
      'The database and Temporal answer: 200 when both do, 503 with the failing one otherwise (readiness probe).',
    responses: { 200: R.ready, 503: R.ready },
    handle: async ({ res }, deps: Deps) => {
      const [database, temporal] = await Promise.all([
        probe(() => ping(deps.db)),
        probe(() =>
          deps.temporal.withDeadline(Date.now() + TIMEOUT_MS, () => deps.temporal.workflowService.getSystemInfo({})),
        ),
      ]);
      const ok = database === 'ok' && temporal === 'ok';
      res
        .status(ok ? 200 : 503)
        .set('cache-control', 'no-store')
        .json({ status: ok ? 'ok' : 'unavailable', checks: { database, temporal } });
    },
  }),
  route({
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description:
      'Prometheus metrics (with `METRICS_TOKEN`, as a bearer token). With `METRICS_PORT` they are served on that internal listener instead.',
    responses: { 200: { mediaType: 'text/plain' } },
    handle: async ({ req, res }, deps: Deps) => {
      await metricsEndpoint(deps.config.METRICS_TOKEN)(req, res, () => undefined);
    },
  }),
  route({
    method: 'get',
    path: '/docs/',
    operationId: 'docs',
    summary: 'This reference, interactive (HTML)',
    description: 'This reference, interactive.',
    responses: { 200: { mediaType: 'text/html' } },
    handle: async ({ req, res }) => {
      // The page's assets are relative: served at /docs it would miss them (routing ignores the trailing slash).
      if (!req.originalUrl.split('?')[0]!.endsWith('/')) return void res.redirect(301, '/docs/');
      res.set('content-security-policy', docsCsp).sendFile(path.join(DOCS_DIR, 'index.html'));
    },
  }),
  route({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapi',
    summary: 'This document',
    description: 'This document: OpenAPI 3.1, generated from the schemas the API validates with.',
    responses: { 200: { mediaType: 'application/json' } },
    handle: async ({ res }, deps: Deps) => void res.type('application/json').send(deps.contract()),
  }),
];

/** Swagger UI's page script and files, served by us under /docs. */
export function docsAssets(): express.Router {
  const r = express.Router();
  // The campaign file's example (README, Campaigns), as an integrator downloads it.
  r.get('/campaign-example.csv', (_req, res) =>
    res.type('text/csv; charset=utf-8').sendFile(path.join(DOCS_DIR, 'campaign-example.csv')),
  );
  r.get('/init.js', (_req, res) =>
    res.set('content-security-policy', docsCsp).sendFile(path.join(DOCS_DIR, 'init.js')),
  );
  r.use(
    (_req, res, next) => void (res.set('content-security-policy', docsCsp), next()),
    express.static(SWAGGER_UI_DIR, { index: false }),
  );
  return r;
}
