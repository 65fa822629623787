// What a campaign's dry run reads (domain/campaigns/check-rows.ts CheckPorts), over the Annuaire client and the
// SML's DNS: each call one request, through the caller's pace (the worker's, at the campaign rates; none for the
// API's pre-flight of one company).
import type { CheckPorts } from '../domain/campaigns/check-rows';
import { lineOf } from '../domain/directory/annuaire-writes';
import type { AnnuaireClient } from './annuaire/client';
import { formatParticipantId, frenchParticipantId } from './peppol/participant-id';
import type { SmlDns } from './peppol/sml-dns';

export type Pace = <T>(call: () => Promise<T>) => Promise<T>;
const unpaced: Pace = (call) => call();

export function campaignLookups(
  c: { annuaire: AnnuaireClient; smlDns: SmlDns },
  pace: { annuaire: Pace; dns: Pace } = { annuaire: unpaced, dns: unpaced },
): CheckPorts {
  return {
    sirenLines: async (siren, from) =>
      (await pace.annuaire(() => c.annuaire.searchLines({ siren, dateDebutRecherche: from })))
        .filter((l) => !l.masked)
        .map(lineOf),
    companyState: async (siren) => (await pace.annuaire(() => c.annuaire.getCompany(siren)))?.etatAdministratif ?? null,
    smpUrls: (address) => pace.dns(() => c.smlDns.smpUrls(formatParticipantId(frenchParticipantId(address)))),
  };
}
