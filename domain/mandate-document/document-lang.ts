// The language a mandate is written in, kept in its catalog (/Lang, ISO 32000-1 §14.9.2): readers and screen
// readers use it, and the audit page added at confirmation is written in the same language.
import { PDFHexString, PDFName, PDFString, type PDFDocument } from 'pdf-lib';
import type { Lang } from './texts';

const TAGS: Record<Lang, string> = { fr: 'fr-FR', en: 'en-GB' };

export function setDocumentLang(doc: PDFDocument, lang: Lang): void {
  doc.setLanguage(TAGS[lang]);
}

/** The document's language; French when it says nothing we know (e.g. an uploaded mandate saved again by a tool). */
export function documentLang(doc: PDFDocument): Lang {
  const tag = doc.catalog.lookup(PDFName.of('Lang')); // any object: an uploaded file's catalog is not ours
  const text = tag instanceof PDFString || tag instanceof PDFHexString ? tag.decodeText() : '';
  return /^en\b/i.test(text) ? 'en' : 'fr';
}
