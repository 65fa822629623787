// The handwriting font of typed signatures (Dancing Script, SIL OFL; the TrueType file of @expo-google-fonts, which
// fontkit reads directly, where a WOFF would be inflated again for every subset): read and parsed once, embedded as
// a subset holding only the signer's letters.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import type { PDFDocument, PDFFont } from 'pdf-lib';

const require = createRequire(import.meta.url);
let handwriting: Buffer | undefined;

// pdf-lib parses the font anew for every document: this fontkit hands it the font already parsed. Subsets are created per document, so sharing the parsed font is safe.
const parsed = new WeakMap<Uint8Array, ReturnType<typeof fontkit.create>>();
const parsedOnce: typeof fontkit = {
  ...fontkit,
  create(data: Uint8Array, postscriptName?: string) {
    let font = parsed.get(data);
    if (!font) parsed.set(data, (font = fontkit.create(data, postscriptName)));
    return font;
  },
};

function handwritingBytes(): Buffer {
  handwriting ??= fs.readFileSync(require.resolve('@expo-google-fonts/dancing-script/400Regular/DancingScript_400Regular.ttf'));
  return handwriting;
}

/** The handwriting font if it can draw every character of `text`, else undefined (the caller falls back). */
export async function embedHandwriting(doc: PDFDocument, text: string): Promise<PDFFont | undefined> {
  doc.registerFontkit(parsedOnce);
  const font = await doc.embedFont(handwritingBytes(), { subset: true });
  const glyphs = new Set(font.getCharacterSet());
  return [...text].every((c) => glyphs.has(c.codePointAt(0)!)) ? font : undefined;
}
