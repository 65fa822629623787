// apps/gov-fr/v1: the entry API (the signer's steps by API), the operators' review, session and decision, directory
// lookups.
import type { Router } from 'express';
import type { MandateDeps } from '../../domain/mandate/context';
import type { AnnuaireClient } from '../../integrations/annuaire/client';
import { annuaireClient } from '../../integrations/clients';
import { serveRoutes } from '../mount';
import { directoryRoutes } from './directory';
import { entryRoutes } from './entry';
import { reviewRoutes } from './review';
import { reviewSessionRoutes } from './review-session';

export const govFrRoutes = [...entryRoutes, ...reviewRoutes, ...reviewSessionRoutes, ...directoryRoutes];

type GovFrDeps = MandateDeps & { annuaire: AnnuaireClient };

/** The Annuaire client built once: every lookup shares its token (the review's comes with `deps`). */
export function govFrRouter(deps: MandateDeps): Router {
  return serveRoutes<GovFrDeps>('/apps/gov-fr/v1', govFrRoutes, {
    ...deps,
    annuaire: annuaireClient(deps.config),
  });
}
