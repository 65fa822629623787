// The handwriting font of typed signatures (Dancing Script, SIL OFL; the TrueType file of @expo-google-fonts),
// embedded as a subset. The subset is made once, for the characters a name can hold on the mandate (Latin-1, the
// French typographic letters and the ligatures the font forms from them), and its bytes are kept: a mandate only
// adds them to its file. A name needing other glyphs gets a subset of its own, made for it as before.
import type { PDFDocument, PDFRef } from 'pdf-lib';
import {
  fontFile,
  hex4,
  makeSubset,
  registerSubsetObjects,
  registerType0,
  REPERTOIRE,
  widthsOf,
  type Subset,
} from './font-subset';
import { ligatureShaper, type Shaper } from './shaping';

const font = fontFile('@expo-google-fonts/dancing-script/400Regular/DancingScript_400Regular.ttf');
let common: Promise<{ subset: Subset; shaper?: Shaper }> | undefined;

/** Flags 4 + 8: symbolic (shown by glyph id, not a standard encoding) and script. */
const SCRIPT_FLAGS = 4 | 8;

function commonSubset(): Promise<{ subset: Subset; shaper?: Shaper }> {
  if (!common) {
    const f = font();
    const chars = REPERTOIRE.filter((c) => f.hasGlyphForCodePoint(c.codePointAt(0)!));
    const shaper = ligatureShaper(f, chars);
    // The ligatures the font forms from these characters, spelt out: laid out, they give the ligature glyphs with
    // the text they stand for.
    const byGlyph = new Map(chars.map((c) => [f.glyphForCodePoint(c.codePointAt(0)!).id, c]));
    const ligatures = (shaper?.lookups ?? []).flatMap((lookup) =>
      [...lookup].flatMap(([first, list]) => list.map((l) => [first, ...l.components].map((id) => byGlyph.get(id)))),
    );
    const texts = [...chars, ...ligatures.filter((l) => l.every(Boolean)).map((l) => l.join(''))];
    common = makeSubset(
      f,
      texts.flatMap((t) => f.layout(t).glyphs),
    ).then((subset) => ({ subset, shaper }));
  }
  return common;
}

export interface EmbeddedText {
  font: PDFRef;
  /** the text as subset glyph ids, hex */
  hex: string;
  /** its advance at a font size of 1 */
  width: number;
}

/** `text` set in the handwriting font and the font embedded in `doc`, or undefined if the font lacks a character. */
export async function embedHandwriting(doc: PDFDocument, text: string): Promise<EmbeddedText | undefined> {
  const f = font();
  if (![...text].every((c) => f.hasGlyphForCodePoint(c.codePointAt(0)!))) return undefined;
  const common = await commonSubset();
  let subset = common.subset;
  // A name of the shared subset's characters is shaped from the font's tables (shaping.ts), any other by fontkit.
  let glyphs = common.shaper?.shape(text);
  if (!glyphs?.every((g) => subset.ids.has(g))) {
    // Kerning is left out: text is shown glyph by glyph at its advance (as pdf-lib did).
    const laid = f.layout(text, { kern: false }).glyphs;
    if (!laid.every((g) => subset.ids.has(g.id))) subset = await makeSubset(f, laid);
    glyphs = laid.map((g) => g.id);
  }
  const ids = glyphs.map((g) => subset.ids.get(g)!);
  return {
    font: registerType0(
      doc,
      subset,
      registerSubsetObjects(doc, subset, f, SCRIPT_FLAGS),
      doc.context.obj(widthsOf(subset, ids)),
    ),
    hex: ids.map(hex4).join(''),
    width: ids.reduce((w, id) => w + (subset.widths[id] ?? 0), 0) / 1000,
  };
}
