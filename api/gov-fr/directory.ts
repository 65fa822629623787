// apps/gov-fr/v1/directory: lookups in the PPF Annuaire (gov-fr_v1.yaml lookupDirectoryBySIREN / ByIdentifier),
// answered live through the Annuaire client.
import type { Router } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { annuaireClient } from '../../integrations/clients';
import { AnnuaireError, today, type AnnuaireClient, type AnnuaireLine } from '../../integrations/annuaire/client';
import type { Config } from '../../platform/config';
import { isSiren } from '../../domain/party/french-ids';
import { mountRoutes, route } from '../../web/http/route';
import * as GovFr from '../../web/signer/schemas';

export const sirenParam = z.object({
  siren: z.string().refine(isSiren, 'must be a 9-digit SIREN with a valid check digit'),
});
// An addressing identifier (SIREN[_SIRET[_ROUTAGE]] or SIREN_SUFFIXE, ≤ 125 characters), optionally as a Peppol
// participant value with its ICD (`0225:…`).
const ADDRESS = /^(?:\d{4}:)?((\d{9})(?:_[-_.@a-zA-Z0-9]+)?)$/;
const MAX_ADDRESS_LENGTH = 125; // the PPF's limit: longer ones exist nowhere, the Annuaire refuses them (once a 502)
export const identifierParam = z.object({
  identifier: z
    .string()
    .max(MAX_ADDRESS_LENGTH + 5, `must be at most ${MAX_ADDRESS_LENGTH} characters (after an optional 0225: prefix)`)
    .refine(
      (v) => (ADDRESS.exec(v)?.[1] ?? v).length <= MAX_ADDRESS_LENGTH,
      `must be at most ${MAX_ADDRESS_LENGTH} characters (after an optional 0225: prefix)`,
    )
    .regex(
      ADDRESS,
      'must be an addressing identifier: SIREN, SIREN_SIRET, SIREN_SIRET_ROUTAGE or SIREN_SUFFIXE, optionally prefixed by an ICD (0225:)',
    )
    .refine((v) => isSiren(ADDRESS.exec(v)?.[2] ?? ''), 'must start with a valid SIREN'),
});

/** DirectoryEntry of gov-fr_v1.yaml. `nature`, `created_at`, `updated_at` describe a local mirror we do not keep. */
export function directoryEntry(l: AnnuaireLine) {
  const compact = (d: string | null | undefined) => (d ?? '').replaceAll('-', '');
  return {
    id_instance: String(l.idInstance),
    siren: l.siren,
    siret: l.siret ?? '',
    routing_code: l.identifiantRoutage ?? '',
    platform_id: l.matriculePlateforme,
    identifier: l.identifiantAdressage,
    suffix: l.suffixeAdressage ?? '',
    start_date: compact(l.dateDebutEffet),
    end_date: compact(l.dateFinEffet),
    effective_end_date: compact(l.dateFinEffective),
  };
}

type Deps = { log: Logger; annuaire: AnnuaireClient };

/** Lines in force today or starting later (lines ended in the past are history, not addresses). */
async function lookup(deps: Deps, filters: { siren: string; identifiantAdressage?: string }): Promise<AnnuaireLine[]> {
  try {
    return await deps.annuaire.searchLines({ ...filters, dateDebutRecherche: today() });
  } catch (err) {
    // Answered 503 (with the directory's Retry-After) or 502 by web/http/problem.ts.
    if (err instanceof AnnuaireError)
      deps.log.warn(
        { status: err.status ?? null, detail: err.detail, siren: filters.siren },
        'directory lookup failed',
      );
    throw err;
  }
}

export const directoryRoutes = [
  route({
    method: 'get',
    path: '/apps/gov-fr/v1/directory/siren/:siren',
    operationId: 'lookupSiren',
    summary: 'Directory lines of a SIREN (PPF Annuaire)',
    description: "The company's lines in the PPF Annuaire: which platform receives its invoices today.",
    scope: 'entries:rw',
    params: sirenParam,
    responses: { 200: GovFr.directoryLookup },
    errors: ['annuaire-unavailable', 'annuaire-refused'],
    handle: async ({ params: { siren } }, deps: Deps) => {
      const lines = await lookup(deps, { siren });
      return { siren, count: lines.length, results: lines.map(directoryEntry) };
    },
  }),
  route({
    method: 'get',
    path: '/apps/gov-fr/v1/directory/identifier/:identifier',
    operationId: 'lookupIdentifier',
    summary: 'Directory lines of an addressing identifier',
    description: 'The lines of an addressing identifier in the PPF Annuaire.',
    scope: 'entries:rw',
    params: identifierParam,
    responses: { 200: GovFr.directoryLookup },
    errors: ['annuaire-unavailable', 'annuaire-refused'],
    handle: async ({ params: { identifier } }, deps: Deps) => {
      const [, address, siren] = ADDRESS.exec(identifier)!;
      // The search matches by substring; only the exact address counts (Peppol values arrive lowercased).
      const lines = (await lookup(deps, { siren: siren!, identifiantAdressage: address! })).filter(
        (l) => l.identifiantAdressage.toLowerCase() === address!.toLowerCase(),
      );
      return { identifier, count: lines.length, results: lines.map(directoryEntry) };
    },
  }),
];

/** The lookups alone, without their scope check: for a test against the Annuaire simulator. */
export function directoryLookupRouter(deps: { config: Config; log: Logger; client?: AnnuaireClient }): Router {
  const annuaire = deps.client ?? annuaireClient(deps.config);
  return mountRoutes('/apps/gov-fr/v1/directory', directoryRoutes, { log: deps.log, annuaire });
}
