// Whether a PDF's text is our mandate: its number, and nearly all the words of the mandate we issued, in French or
// in English (the signer may have downloaded either). A document that only quotes the number is not the mandate.
import { buildMandatePdf, type MandateInput } from '../mandate-document/pdf';
import { pdfText, textCarries } from './pdf-text';

/** The issued mandate, without the language and the signature (both vary; the words of either language count). */
export type MandateReference = Omit<MandateInput, 'lang' | 'signature'>;

/** Share of the issued mandate's words the upload must hold: re-saved, re-rendered or signed, it holds them all. */
const COVERAGE = 0.9;

const words = (text: string) =>
  new Set(
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length >= 2),
  );

/** The words of the last mandates checked against: a signer sending again, or a second file, costs no rebuild. */
const recent = new Map<string, Promise<Set<string>[]>>();
const RECENT = 32;

export function referenceWords(reference: MandateReference): Promise<Set<string>[]> {
  const key = JSON.stringify(reference);
  let found = recent.get(key);
  if (found)
    recent.delete(key); // most recent last
  else
    found = Promise.all(
      (['fr', 'en'] as const).map(async (lang) =>
        words(await pdfText(await buildMandatePdf({ ...reference, lang }), 10)),
      ),
    );
  recent.set(key, found);
  found.catch(() => recent.delete(key));
  while (recent.size > RECENT) recent.delete(recent.keys().next().value!);
  return found;
}

export function isOurMandate(text: string, mandateNumber: string, references: Set<string>[]): boolean {
  if (!textCarries(text, mandateNumber)) return false;
  const found = words(text);
  return references.some((ref) => [...ref].filter((w) => found.has(w)).length >= COVERAGE * ref.size);
}
