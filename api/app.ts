// The HTTP API: one router per service and version, behind API-key auth; errors as problem+json.
import express from 'express';
import type { JobServiceDeps } from '../transform/jobs';
import { authenticate } from './auth';
import { rejectNulCharacters } from './no-nul';
import { errorHandler, routeNotFound } from './problem';
import { siloRouter } from './silo-v1';
import { transformRouter } from './transform-v1';

export type ApiDeps = JobServiceDeps;

export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(express.json({ limit: '1mb', strict: true }));
  app.use(rejectNulCharacters);

  app.get('/utils/v1/ping', (_req, res) => void res.json({ ping: 'pong' }));

  const authed = authenticate(deps.db);
  app.use('/silo/v1', authed, siloRouter(deps.db));
  app.use('/transform/v1', authed, transformRouter(deps));

  app.use(routeNotFound);
  app.use(errorHandler(deps.log));
  return app;
}
