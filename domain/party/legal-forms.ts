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

/** Words saying the company is a person trading in their own name, however its form is written. */
const SOLE_TRADER_WORDS = /\b(ENTREPRISE INDIVIDUELLE|ENTREPRENEUR INDIVIDUEL|AUTO ENTREPRENEUR|MICRO ENTREPRISE)\b/;

/**
 * The name, when it states a legal person's form as companies write it — in capitals, as its first or last word
 * ("Danone SA", "SAS Martin", "Atelier Nord (S.A.R.L.)") — and nothing of a sole trader's; undefined otherwise, as
 * the name of a company whose form is unknown may be a person's (personal data, which the Temporal UI must not
 * show): "José Sá" or "Dupont et Sa Cuisine" are not taken for a société anonyme.
 */
export function legalPersonName(name: string | null | undefined): string | undefined {
  const trimmed = name?.trim();
  if (!trimmed) return undefined;
  // A form may be written with dots ("E.I."): looked for with them and without.
  const words = nameWords(trimmed);
  const undotted = nameWords(trimmed.replaceAll('.', ''));
  if ([...words, ...undotted].some((w) => SOLE_TRADER_FORMS.has(w)) || SOLE_TRADER_WORDS.test(words.join(' ')))
    return undefined;
  const tokens = trimmed.split(/[\s()[\],;:]+/).filter(Boolean);
  const isForm = (token: string | undefined) => {
    const form = token?.replaceAll('.', '') ?? '';
    return /^[A-Z]+$/.test(form) && LEGAL_PERSON_FORMS.has(form);
  };
  return isForm(tokens[0]) || isForm(tokens.at(-1)) ? trimmed : undefined;
}
