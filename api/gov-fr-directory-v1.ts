// apps/gov-fr/v1/directory: lookups in the PPF Annuaire (gov-fr_v1.yaml lookupDirectoryBySIREN / ByIdentifier),
// answered live through the Annuaire client. Mounted at /directory inside the authenticated gov-fr router.
import { Router, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { annuaireClient } from '../integrations/clients';
import { AnnuaireError, today, type AnnuaireClient, type AnnuaireLine } from '../integrations/annuaire/client';
import type { Config } from '../platform/config';
import { isSiren } from '../domain/party/french-ids';
import { params } from '../web/http/validate';

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

export function directoryLookupRouter(deps: { config: Config; log: Logger; client?: AnnuaireClient }): Router {
  const { config, log } = deps;
  // One client per router: its token is shared by every lookup.
  const client = deps.client ?? annuaireClient(config);

  /** Lines in force today or starting later (lines ended in the past are history, not addresses). */
  async function lookup(
    res: Response,
    filters: { siren: string; identifiantAdressage?: string },
  ): Promise<AnnuaireLine[]> {
    try {
      return await client.searchLines({ ...filters, dateDebutRecherche: today() });
    } catch (err) {
      // Answered 503 (with the directory's Retry-After) or 502 by web/http/problem.ts.
      if (err instanceof AnnuaireError)
        log.warn({ status: err.status ?? null, detail: err.detail, siren: filters.siren }, 'directory lookup failed');
      throw err;
    }
  }

  const r = Router();
  r.get('/siren/:siren', async (req, res) => {
    const { siren } = params(req, sirenParam);
    const lines = await lookup(res, { siren });
    res.json({ siren, count: lines.length, results: lines.map(directoryEntry) });
  });
  r.get('/identifier/:identifier', async (req, res) => {
    const { identifier } = params(req, identifierParam);
    const [, address, siren] = ADDRESS.exec(identifier)!;
    // The search matches by substring; only the exact address counts (Peppol values arrive lowercased).
    const lines = (await lookup(res, { siren: siren!, identifiantAdressage: address! })).filter(
      (l) => l.identifiantAdressage.toLowerCase() === address!.toLowerCase(),
    );
    res.json({ identifier, count: lines.length, results: lines.map(directoryEntry) });
  });
  return r;
}
