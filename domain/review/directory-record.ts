// The PPF Annuaire's record of the company a submission is for, as the operators see it: its name and state, and the
// platforms other than ours holding its lines in force (a take-over). Asked once when the submission is made
// (submission-checks.ts) and again by the review detail; when the Annuaire cannot answer, the record says why in
// words and nothing fails for it.
import type { Logger } from 'pino';
import { FICTIVE_PLATFORM, today } from '../directory/lines';
import { RemoteFailure } from '../remote-failure';
import { isLegalForm, nameWords } from '../party/legal-forms';

/** The Annuaire as the operators' checks ask it (a port: integrations/annuaire/client.ts satisfies it as it is). */
export interface CompanyLookup {
  getCompany(
    siren: string,
  ): Promise<{ siren: string; raisonSociale: string; etatAdministratif: 'A' | 'C'; typeEntite?: string } | null>;
  searchLines(filters: {
    siren: string;
    dateObservation: string;
  }): Promise<{ matriculePlateforme: string; masked?: boolean }[]>;
}

export type DirectoryRecord =
  | {
      outcome: 'found';
      record: { siren: string; name: string; status: 'active' | 'ceased'; entity_type?: string };
      /** Matricules of the platforms, other than ours and the fictive one, whose lines are in force today. */
      other_platforms: string[];
    }
  | { outcome: 'not-found' | 'unavailable' | 'refused' | 'no-siren' | 'unchecked'; reason: string };

/** The Annuaire's record for the SIREN, or why there is none. `us`: our matricule. */
export async function directoryRecord(
  annuaire: CompanyLookup,
  log: Logger,
  siren: string | null,
  us: string,
): Promise<DirectoryRecord> {
  if (!siren) return { outcome: 'no-siren', reason: 'the entry has no SIREN to look up' };
  try {
    const [c, lines] = await Promise.all([
      annuaire.getCompany(siren),
      annuaire.searchLines({ siren, dateObservation: today() }),
    ]);
    if (!c) return { outcome: 'not-found', reason: `the PPF Annuaire has no company with SIREN ${siren}` };
    const others = lines
      .filter((l) => !l.masked && l.matriculePlateforme !== us && l.matriculePlateforme !== FICTIVE_PLATFORM)
      .map((l) => l.matriculePlateforme);
    return {
      outcome: 'found',
      record: {
        siren: c.siren,
        name: c.raisonSociale,
        status: c.etatAdministratif === 'A' ? 'active' : 'ceased',
        ...(c.typeEntite && { entity_type: c.typeEntite }),
      },
      other_platforms: [...new Set(others)].sort(),
    };
  } catch (err) {
    if (!(err instanceof RemoteFailure)) throw err;
    log.warn({ status: err.status, said: err.said, siren }, 'review: directory lookup failed');
    return err.retryable
      ? { outcome: 'unavailable', reason: `the PPF Annuaire is unavailable: ${err.message}` }
      : { outcome: 'refused', reason: `the PPF Annuaire refused the lookup: ${err.message}` };
  }
}

/**
 * A company's name as compared: case, accents, punctuation, spacing and legal forms aside ("Société A.B.C. SARL" is
 * "SOCIETE A B C"; "Danone SA" is the Annuaire's DANONE).
 */
export const comparableName = (name: string): string =>
  nameWords(name)
    .filter((w) => !isLegalForm(w))
    .join(' ');

/** Whether the declared name is the Annuaire's, and the company active: unknown (null) without a record. */
export function recordMatches(
  record: DirectoryRecord,
  declaredName: string | null | undefined,
): { nameMatches: boolean | null; companyActive: boolean | null } {
  if (record.outcome === 'not-found') return { nameMatches: null, companyActive: false };
  if (record.outcome !== 'found') return { nameMatches: null, companyActive: null };
  return {
    nameMatches: comparableName(record.record.name) === comparableName(declaredName ?? ''),
    companyActive: record.record.status === 'active',
  };
}
