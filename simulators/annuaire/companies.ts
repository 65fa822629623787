// Companies the simulator's directory knows from the start, as the real one knows every SIREN of the SIRENE register:
// a few large French companies, so the README's example (Danone) shows the directory's record on the operator's review
// page. Tests add their own with seedCompany(), trials through the control routes (admin-routes.ts).
export const KNOWN_COMPANIES = [
  { siren: '552032534', raisonSociale: 'DANONE' },
  { siren: '632012100', raisonSociale: "L'OREAL" },
  { siren: '542051180', raisonSociale: 'TOTALENERGIES SE' },
  { siren: '380129866', raisonSociale: 'ORANGE' },
  { siren: '652014051', raisonSociale: 'CARREFOUR' },
  { siren: '855200887', raisonSociale: 'COMPAGNIE GENERALE DES ETABLISSEMENTS MICHELIN' },
] as const;

export interface SimCompany {
  siren: string;
  raisonSociale: string;
  etatAdministratif?: 'A' | 'C';
  typeEntite?: 'Publique' | 'Privée assujettie';
  /**
   * false: a number the register never issued (or one the directory does not hold): no record, no line, not even the
   * default one on 9998. Every other SIREN is known, with its default line.
   */
  known?: boolean;
}

/** A company as the simulator keeps it (in its state file): with the idInstance its record answers. */
export type StoredCompany = SimCompany & { idInstance: number };

/** The name a company gets when the PPF acts on a SIREN the simulator was never told about. */
export const placeholderName = (siren: string) => `ENTREPRISE ${siren} (SIMULÉE)`;

/** A company as the directory answers it: its unité légale, without its record's history. */
export const uniteLegale = (c: SimCompany) => ({
  siren: c.siren,
  raisonSociale: c.raisonSociale,
  typeEntite: c.typeEntite ?? 'Privée assujettie',
  etatAdministratif: c.etatAdministratif ?? 'A',
  diffusible: 'O',
});
