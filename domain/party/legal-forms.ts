// French legal forms as companies write them in their names ("Danone SA", "Martin Plomberie EI"). The SIRENE register
// (and so the Annuaire) leaves them out of most names; a sole trader's form (EI, EIRL) says the company is a person.

/** Forms of legal persons (sociétés, groupements). */
const LEGAL_PERSON_FORMS = new Set(
  'SA SAS SASU SARL EURL SNC SCS SCA SCI SCP SCM SEL SELARL SELAS SELAFA SELCA GIE SEM SCOP SE'.split(' '),
);

/** Forms of a natural person trading in their own name: their company's name is theirs. */
const SOLE_TRADER_FORMS = new Set(['EI', 'EIRL']);

/** A name's words, case, accents and punctuation aside ("Société A.B.C. SARL" is SOCIETE A B C SARL). */
export const nameWords = (name: string): string[] =>
  name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

export const isLegalForm = (word: string): boolean => LEGAL_PERSON_FORMS.has(word) || SOLE_TRADER_FORMS.has(word);

/**
 * The name, when it states a legal person's form and no sole trader's; undefined otherwise, as the name of a company
 * whose form is unknown may be a person's (personal data, which the Temporal UI must not show).
 */
export function legalPersonName(name: string | null | undefined): string | undefined {
  if (!name) return undefined;
  // A form may be written with dots ("S.A.R.L."): looked for with them and without.
  const words = [...nameWords(name), ...nameWords(name.replaceAll('.', ''))];
  if (words.some((w) => SOLE_TRADER_FORMS.has(w))) return undefined;
  return words.some((w) => LEGAL_PERSON_FORMS.has(w)) ? name.trim() : undefined;
}
