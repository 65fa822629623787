// Which of a company's listed directors (`dirigeants`, each with its `qualite`) represent it towards third parties,
// and so may bind it by signing its mandate: a SAS's président, directeur général or directeur général délégué; a
// SARL's, SNC's or société civile's gérant; a SA's directeur général (or PDG), directeurs généraux délégués, the
// président du directoire and its directeur général unique; a liquidator. The register lists others beside them —
// statutory auditors (commissaires aux comptes), board and supervisory-board members, vice-presidents, partners —
// who do not: a name found among those binds nothing.
import { nameWords } from '../party/legal-forms';

const NOT_REPRESENTING = ['COMMISSAIRE', 'SURVEILLANCE', 'VICE', 'SUPPLEANT', 'CENSEUR', 'ASSOCIE NON GERANT'];
// Matched at a word's start, so that the feminine forms count too (Présidente, Gérante); Directrice générale and
// Liquidatrice are written out.
const REPRESENTING = [
  'PRESIDENT',
  'GERANT',
  'DIRECTEUR GENERAL',
  'DIRECTRICE GENERALE',
  'LIQUIDATEUR',
  'LIQUIDATRICE',
  'REPRESENTANT LEGAL',
];

/** Whether a listed `qualite` represents the company (an unknown one does not). */
export function isRepresentative(role: string | undefined): boolean {
  const words = ` ${nameWords(role ?? '').join(' ')} `;
  if (NOT_REPRESENTING.some((w) => words.includes(` ${w}`))) return false;
  // A board's chair (président du conseil d'administration) is not its company's representative, unless also its
  // directeur général (PDG).
  const chiefExecutive = words.includes(' DIRECTEUR GENERAL') || words.includes(' DIRECTRICE GENERALE');
  if (words.includes(' CONSEIL D ADMINISTRATION') && !chiefExecutive) return false;
  return REPRESENTING.some((w) => words.includes(` ${w}`));
}
