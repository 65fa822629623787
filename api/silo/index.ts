// silo/v1: party entries, their meta rows and their stored credentials.
import { Router } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../../platform/config';
import type { DataBox } from '../../platform/crypto/data-box';
import type { Db } from '../../platform/store/db';
import { migrationKeysSealed } from '../../domain/party/peppol-migration';
import { serveRoutes } from '../mount';
import { credentialRoutes } from './credentials';
import { entryRoutes } from './entries';
import { metaRoutes } from './meta';

export const siloRoutes = [...entryRoutes, ...metaRoutes, ...credentialRoutes];

type SiloDeps = { db: Db; box: DataBox; log: Logger; config: Pick<Config, 'PA_MATRICULE'> };

export function siloRouter(deps: SiloDeps): Router {
  const r = Router();
  // Migration keys written in clear by an earlier version are sealed before the first request is served.
  r.use(async (_req, _res, next) => {
    await migrationKeysSealed(deps.db, deps.box, deps.log);
    next();
  });
  r.use(serveRoutes<SiloDeps>('/silo/v1', siloRoutes, deps));
  return r;
}
