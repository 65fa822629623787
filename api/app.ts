// The HTTP API: one router per service and version, behind API-key or operator auth; errors as problem+json.
import express from 'express';
import type { Config } from '../platform/config';
import type { DataBox } from '../platform/crypto/data-box';
import type { SealKey } from '../domain/mandate-document/seal';
import type { InspectionPool } from '../domain/inspection';
import type { JobServiceDeps } from '../domain/jobs/jobs';
import { adminRoutes } from './admin';
import { eventRoutes } from './events';
import { operatorRoutes } from './operators';
import { reconciliationRoutes } from './operators/reconciliation';
import { docsAssets, serviceRoutes } from './service';
import { mountRoutes } from '../web/http/route';
import { observability } from './observability';
import { openApiDocument } from './openapi';
import { watchDrift, watchJobs } from '../platform/observability/metrics';
import { openFindingCounts } from '../platform/store/drift-findings';
import { countJobsByStatus } from '../platform/store/job-views';
import { authenticate } from './auth';
import { idempotency, parsedWhenKeyed } from './idempotency';
import { failedAuthentications, ipRateLimit, rateLimit, wizardRefRateLimit } from './rate-limit';
import { framingByCspOnly, securityHeaders } from './security-headers';
import { rejectNulCharacters } from '../web/http/no-nul';
import { MAX_SMALL_JSON_VALUES, boundedJson } from '../web/http/bounded-json';
import { uploadJson } from '../web/http/upload-json';
import { errorHandler, routeNotFound } from '../web/http/problem';
import { govFrRouter } from './gov-fr';
import { siloRouter } from './silo';
import { smpOptionsFromFiles } from '../integrations/peppol/smp-documents';
import { serveSmp } from './peppol/smp';
import { transformRoutes } from './transform';
import { serveRoutes } from './mount';
import { peppolRoutes } from './peppol';
import { smlClient, smlDnsClient } from '../integrations/clients';
import { signingDeps, type SigningDeps } from './signing-deps';
import { campaignLookups } from '../integrations/campaign-lookups';
import { campaignRoutes } from './campaigns';
import { smlRegistry } from '../integrations/peppol/sml-registry';
import { wizardRouter } from '../web/wizard/router';
import { reviewPageRouter } from '../web/review/router';

/** `inspector`: the pool checking uploaded files (domain/inspection/); the caller closes it with the server. */
export type ApiDeps = JobServiceDeps & {
  config: Config;
  box: DataBox;
  sealKey: SealKey;
  inspector?: InspectionPool;
  /** Built once by the process when its background tasks share them (bin/); else here. */
  signing?: SigningDeps;
};

export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // The client address (req.ip, the per-address limit) through the configured load balancers only.
  app.set('trust proxy', deps.config.TRUST_PROXY ?? false);
  // MAX_JSON_BODY (128 KB) and MAX_JSON_VALUES, counted before parsing (web/http/bounded-json.ts).
  const json = [boundedJson(), rejectNulCharacters];
  app.use(...observability(deps.log), ...securityHeaders());
  // Our SMP: public, read by every Peppol access point and the Peppol Directory. Many access points read from behind
  // one address (a cloud's NAT), and its answers come from a record cache: its reads are not counted per address.
  app.use(
    '/smp',
    serveSmp(
      { db: deps.db, config: deps.config, log: deps.log },
      {
        ...smpOptionsFromFiles(deps.config),
        recordCacheMs: deps.config.SMP_RECORD_CACHE_MS,
        httpMaxAgeS: deps.config.SMP_HTTP_MAX_AGE_S,
      },
    ),
  );
  // Probes (health, readiness, ping, metrics) are never limited: an orchestrator must not see the service die because
  // someone behind its address flooded it. The API counts per key, its failed authentications per address; the
  // public pages and files per address (api/rate-limit.ts).
  const perAddress = ipRateLimit(deps.config.ipRateLimitPerMinute);
  app.use(['/openapi.json', '/docs', '/apps/gov-fr/review', '/reg'], perAddress);
  watchJobs(deps.db, () => countJobsByStatus(deps.db));
  watchDrift(deps.db, () => openFindingCounts(deps.db));
  // With METRICS_PORT, /metrics is served on that internal listener only (bin/), not here. The contract is generated
  // from the routes' declarations, once.
  const contract = JSON.stringify(openApiDocument(deps.config.publicBaseUrl));
  const served = serviceRoutes.filter((r) => r.path !== '/metrics' || deps.config.METRICS_PORT === undefined);
  app.use(mountRoutes('', served, { ...deps, contract: () => contract }));
  app.use('/docs', docsAssets());

  // The signer's steps, the operators' review and the background re-checks share their clients (signing-deps.ts).
  const signing = deps.signing ?? signingDeps(deps);
  const authed = [
    authenticate(deps.db, failedAuthentications(deps.config.RATE_LIMIT_FAILED_AUTH_PER_MINUTE)),
    rateLimit(deps.config.RATE_LIMIT_PER_MINUTE),
  ];
  // Idempotency-Key on POSTs: after the body parser (a request is identified by its body too), before the router.
  const idempotent = idempotency(deps);
  app.use('/silo/v1', ...authed, ...json, idempotent, siloRouter(deps));
  app.use('/transform/v1', ...authed, ...json, idempotent, serveRoutes('/transform/v1', transformRoutes, deps));
  app.use(
    '/events/v1',
    ...authed,
    boundedJson({ limit: '16kb', maxValues: MAX_SMALL_JSON_VALUES }),
    rejectNulCharacters,
    idempotent,
    serveRoutes('/events/v1', eventRoutes, deps),
  );
  app.use(
    '/admin/v1',
    ...authed,
    boundedJson({ limit: '16kb', maxValues: MAX_SMALL_JSON_VALUES }),
    rejectNulCharacters,
    idempotent,
    serveRoutes('/admin/v1', adminRoutes, deps),
  );
  // Campaigns: the upload reads its own body (a file streamed, with its own limits) and is identified by its own key
  // or its file's hash; the other POSTs (start, pause…) carry no body and take an Idempotency-Key.
  app.use(
    '/campaigns/v1',
    ...authed,
    (req, res, next) => (req.method === 'POST' && req.path === '/campaigns' ? next() : idempotent(req, res, next)),
    serveRoutes('/campaigns/v1', campaignRoutes, {
      ...deps,
      preflight: {
        db: deps.db,
        us: deps.config.PA_MATRICULE,
        ourSmpUrl: deps.config.smpPublicUrl,
        concurrency: 1,
        ports: campaignLookups({ annuaire: signing.reviewAnnuaire, smlDns: smlDnsClient(deps.config) }),
      },
    }),
  );
  // The platform's operators, managed by an operator-admin (no workspace key reaches them).
  app.use(
    '/operators/v1',
    ...authed,
    boundedJson({ limit: '16kb', maxValues: MAX_SMALL_JSON_VALUES }),
    rejectNulCharacters,
    serveRoutes('/operators/v1', [...operatorRoutes, ...reconciliationRoutes], deps),
  );
  // The operator's review page and its assets (pdf.js included): static, public, its own strict CSP (web/review/router.ts).
  app.use('/apps/gov-fr/review', reviewPageRouter());
  // Uploads: the router sets its own body limits per route. With an Idempotency-Key the body is read first by the
  // upload parser (6 MB, a few separators: cheap to parse), the decision's included.
  app.use(
    '/apps/gov-fr/v1',
    ...authed,
    ...parsedWhenKeyed(uploadJson, rejectNulCharacters),
    idempotent,
    govFrRouter(signing),
  );

  // Peppol migrations to another SMP: the SML client built once here, by the worker's factory.
  app.use(
    '/apps/peppol/v1',
    ...authed,
    ...json,
    idempotent,
    serveRoutes('/apps/peppol/v1', peppolRoutes, {
      db: deps.db,
      log: deps.log,
      sml: smlRegistry(smlClient(deps.config)),
    }),
  );

  // The registration wizard: public, its link's ref is the credential.
  app.use(
    '/reg',
    wizardRefRateLimit(deps.config.WIZARD_RATE_LIMIT_PER_REF_PER_MINUTE),
    framingByCspOnly,
    wizardRouter(signing),
  );

  app.use(perAddress, routeNotFound);
  app.use(errorHandler(deps.log));
  return app;
}
