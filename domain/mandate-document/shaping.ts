// Shaping typed names without fontkit's layout engine. fontkit shapes text in general (a shaping plan, then GSUB and
// GPOS passes over glyph objects), a tenth of a mandate's build. For a font whose default substitutions are all
// ligatures (GSUB type 4, no lookup flags), as the handwriting font's are, shaping a name made of known characters
// comes down to each character's glyph, then those ligatures in lookup order: read here from the font once. Anything
// else is left to fontkit, and a test checks that both give the same glyphs.
import type { Font } from '@pdf-lib/fontkit';

// Narrow views of what fontkit parses from GSUB (not in its typings).
interface Coverage {
  glyphs?: number[];
  rangeRecords?: { start: number; end: number }[];
}
interface Lookup {
  lookupType: number;
  flags: { markAttachmentType: number; flags: Record<string, boolean> };
  subTables: { coverage: Coverage; ligatureSets: { toArray(): { glyph: number; components: number[] }[][] } }[];
}
interface Gsub {
  scriptList: { tag: string; script: { defaultLangSys?: { featureIndexes: number[] } } }[];
  featureList: { tag: string; feature: { lookupListIndexes: number[] } }[];
  lookupList: { get(i: number): Lookup };
}

/** A glyph's ligatures, in the table's order: the first whose components follow it is formed. */
export type Ligatures = Map<number, { components: number[]; glyph: number }[]>;

/** Glyph ids covered by an OpenType coverage table (both formats), in coverage index order. */
function coverage(c: Coverage): number[] {
  return (
    c.glyphs ??
    (c.rangeRecords ?? []).flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i))
  );
}

/** The GSUB features fontkit's default shaper applies to left-to-right text; the first three in an earlier stage. */
const EARLY = ['rvrn', 'ltra', 'ltrm'];
const DEFAULT = ['ccmp', 'locl', 'rlig', 'calt', 'clig', 'liga', 'rclt'];

/**
 * The default substitution lookups for `scriptTag` (fontkit falls back to DFLT), in the order fontkit applies them
 * (one stage: by lookup index), or undefined when one is not a plain ligature lookup.
 */
function ligatureLookups(gsub: Gsub, scriptTag: string): Ligatures[] | undefined {
  const script = (gsub.scriptList.find((s) => s.tag === scriptTag) ?? gsub.scriptList.find((s) => s.tag === 'DFLT'))
    ?.script;
  const features = (script?.defaultLangSys?.featureIndexes ?? []).map((i) => gsub.featureList[i]!);
  if (features.some((f) => EARLY.includes(f.tag))) return undefined;
  const indexes = [
    ...new Set(features.filter((f) => DEFAULT.includes(f.tag)).flatMap((f) => f.feature.lookupListIndexes)),
  ].sort((a, b) => a - b);
  const lookups: Ligatures[] = [];
  for (const lookup of indexes.map((i) => gsub.lookupList.get(i))) {
    if (lookup.lookupType !== 4 || lookup.flags.markAttachmentType || Object.values(lookup.flags.flags).some(Boolean))
      return undefined;
    const ligatures: Ligatures = new Map();
    for (const table of lookup.subTables) {
      const first = coverage(table.coverage);
      table.ligatureSets.toArray().forEach((set, i) => {
        const list = ligatures.get(first[i]!) ?? [];
        ligatures.set(first[i]!, [...list, ...set.map((l) => ({ components: [...l.components], glyph: l.glyph }))]);
      });
    }
    lookups.push(ligatures);
  }
  return lookups;
}

export interface Shaper {
  /** The glyph ids of `text`, or undefined if it holds a character the shaper was not made for. */
  shape(text: string): number[] | undefined;
  lookups: Ligatures[];
}

/**
 * A shaper for texts made of `chars`, each mapped to the glyph fontkit lays it out as; undefined when the font's
 * default shaping is more than ligatures.
 */
export function ligatureShaper(font: Font, chars: string[]): Shaper | undefined {
  const f = font as unknown as { GSUB?: Gsub; morx?: unknown };
  if (f.morx) return undefined; // fontkit would use its AAT engine
  const lookups = f.GSUB ? ligatureLookups(f.GSUB, 'latn') : [];
  const common = f.GSUB ? ligatureLookups(f.GSUB, 'DFLT') : [];
  if (!lookups || !common || JSON.stringify(lookups.map((l) => [...l])) !== JSON.stringify(common.map((l) => [...l])))
    return undefined;
  const glyphs = new Map<string, number>();
  for (const ch of chars) {
    const laid = font.layout(ch, { kern: false }).glyphs;
    if (laid.length === 1) glyphs.set(ch, laid[0]!.id);
  }
  return {
    lookups,
    shape(text) {
      const ids: number[] = [];
      for (const ch of text) {
        const id = glyphs.get(ch);
        if (id === undefined) return undefined;
        ids.push(id);
      }
      for (const ligatures of lookups) {
        for (let i = 0; i < ids.length; i++) {
          const formed = ligatures.get(ids[i]!)?.find((l) => l.components.every((c, k) => ids[i + 1 + k] === c));
          if (formed) ids.splice(i, formed.components.length + 1, formed.glyph);
        }
      }
      return ids;
    },
  };
}
