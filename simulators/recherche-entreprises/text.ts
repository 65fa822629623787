// The folding of the text search: case and accents ignored (as the real index's lowercase + asciifolding), words cut
// at anything that is not a letter or a digit, so "Société Générale" and "SOCIETE-GENERALE" both give
// ["societe", "generale"].
const LIGATURES: Record<string, string> = { œ: 'oe', æ: 'ae', ß: 'ss' };

export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[œæß]/g, (l) => LIGATURES[l]!)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Every word of `wanted` is one of `have`. */
export const allIn = (wanted: readonly string[], have: ReadonlySet<string>) => wanted.every((w) => have.has(w));
