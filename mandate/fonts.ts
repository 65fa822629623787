// The handwriting font of typed signatures (Dancing Script, SIL OFL, from @fontsource): read once, embedded as a
// subset holding only the signer's letters.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import type { PDFDocument, PDFFont } from 'pdf-lib';

const require = createRequire(import.meta.url);
let handwriting: Buffer | undefined;

function handwritingBytes(): Buffer {
  // The latin subset covers French (accents, œ, ç, apostrophes, hyphens).
  handwriting ??= fs.readFileSync(require.resolve('@fontsource/dancing-script/files/dancing-script-latin-400-normal.woff'));
  return handwriting;
}

/** The handwriting font if it can draw every character of `text`, else undefined (the caller falls back). */
export async function embedHandwriting(doc: PDFDocument, text: string): Promise<PDFFont | undefined> {
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(handwritingBytes(), { subset: true });
  const glyphs = new Set(font.getCharacterSet());
  return [...text].every((c) => glyphs.has(c.codePointAt(0)!)) ? font : undefined;
}
