// The HTTP API: one router per service and version, behind API-key auth; errors as problem+json.
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import express from 'express';
import type { Config } from '../config';
import type { DataBox } from '../crypto/data-box';
import type { SealKey } from '../mandate/seal';
import type { JobServiceDeps } from '../transform/jobs';
import { adminRouter } from './admin-v1';
import { eventsRouter } from './events-v1';
import { healthRouter } from './health';
import { observability } from './observability';
import { openApiDocument } from './openapi';
import { registry, watchJobs } from '../lib/metrics';
import { authenticate } from './auth';
import { rateLimit } from './rate-limit';
import { rejectNulCharacters } from './no-nul';
import { errorHandler, routeNotFound } from './problem';
import { govFrRouter } from './gov-fr-v1';
import { siloRouter } from './silo-v1';
import { smpOptionsFromFiles, smpRouter } from '../peppol/smp-router';
import { transformRouter } from './transform-v1';
import { wizardRouter } from '../wizard/router';

const DOCS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'docs');
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const REVIEW_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'review');
const REVIEW_PAGE = path.join(REVIEW_DIR, 'page.html');
const REVIEW_SCRIPT = path.join(REVIEW_DIR, 'page.js');

export type ApiDeps = JobServiceDeps & { config: Config; box: DataBox; sealKey: SealKey };

export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  const json = [express.json({ limit: '1mb', strict: true }), rejectNulCharacters];
  app.use(...observability(deps.log));
  watchJobs(deps.db);
  app.get('/metrics', async (req, res) => {
    if (deps.config.METRICS_TOKEN && req.get('authorization') !== `Bearer ${deps.config.METRICS_TOKEN}`) {
      return void res.status(401).type('text/plain').send('metrics need the METRICS_TOKEN bearer token');
    }
    res.type(registry.contentType).send(await registry.metrics());
  });

  // The contract, generated from the zod schemas, and its interactive reference (Swagger UI, served by us).
  const contract = JSON.stringify(openApiDocument(deps.config.publicBaseUrl));
  app.get('/openapi.json', (_req, res) => void res.type('application/json').send(contract));
  const docsCsp = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";
  app.get('/docs/', (req, res) => {
    // The page's assets are relative: served at /docs it would miss them (routing ignores the trailing slash).
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, '/docs/');
    res.set('content-security-policy', docsCsp).sendFile(path.join(DOCS_DIR, 'index.html'));
  });
  app.get('/docs/init.js', (_req, res) => res.set('content-security-policy', docsCsp).sendFile(path.join(DOCS_DIR, 'init.js')));
  app.use('/docs', (_req, res, next) => void (res.set('content-security-policy', docsCsp), next()), express.static(SWAGGER_UI_DIR, { index: false }));

  app.get('/utils/v1/ping', (_req, res) => void res.json({ ping: 'pong' }));
  app.use('/utils/v1', healthRouter({ db: deps.db, temporal: deps.temporal }));

  const authed = [authenticate(deps.db), rateLimit(deps.config.RATE_LIMIT_PER_MINUTE)];
  app.use('/silo/v1', ...authed, ...json, siloRouter(deps.db, deps.box));
  app.use('/transform/v1', ...authed, ...json, transformRouter(deps));
  app.use('/events/v1', ...authed, express.json({ limit: '16kb', strict: true }), rejectNulCharacters, eventsRouter(deps));
  app.use('/admin/v1', ...authed, express.json({ limit: '16kb', strict: true }), rejectNulCharacters, adminRouter(deps.db));
  // The operator's review page and script: static, public (the data behind them needs the operator's key).
  const csp = "default-src 'self'; img-src 'self' blob:; frame-src blob:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";
  app.get('/apps/gov-fr/review/', (_req, res) => res.set('content-security-policy', csp).sendFile(REVIEW_PAGE));
  app.get('/apps/gov-fr/review/review.js', (_req, res) => res.set('content-security-policy', csp).type('text/javascript').sendFile(REVIEW_SCRIPT));
  // Uploads: the router sets its own body limits per route.
  app.use('/apps/gov-fr/v1', ...authed, govFrRouter(deps));

  // The registration wizard: public, its link's ref is the credential.
  app.use('/reg', wizardRouter(deps));

  // Our SMP: public, read by every Peppol access point and the Peppol Directory.
  app.use('/smp', smpRouter({ db: deps.db, config: deps.config, log: deps.log }, { ...smpOptionsFromFiles(deps.config), recordCacheMs: deps.config.SMP_RECORD_CACHE_MS, httpMaxAgeS: deps.config.SMP_HTTP_MAX_AGE_S }));

  app.use(routeNotFound);
  app.use(errorHandler(deps.log));
  return app;
}
