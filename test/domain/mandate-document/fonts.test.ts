// The typed signature's handwriting font: one subset made once for the names a mandate can hold, a subset of its own
// for a name beyond it, and the embedded italic text font for what the handwriting font cannot draw. Checked by
// reading the PDFs back with poppler (pdftotext, pdffonts).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import fontkit, { type Font } from '@pdf-lib/fontkit';
import { describe, expect, it } from 'vitest';
import { makeSubset, REPERTOIRE } from '../../../domain/mandate-document/font-subset';
import { buildMandatePdf } from '../../../domain/mandate-document/pdf';
import { ligatureShaper } from '../../../domain/mandate-document/shaping';
import { frenchParty } from '../../../domain/party';

const typed = (given: string, surname: string) =>
  buildMandatePdf({
    party: frenchParty.parse({
      name: 'Boulangerie Exemple SAS',
      tax_id: { country: 'FR', code: '27552032534' },
      identities: [{ type: 'SIREN', code: '552032534' }],
      people: [{ name: { given, surname }, role: 'Gérante', identities: [{ code: 'X4RTBPFW4' }] }],
    }),
    siren: '552032534',
    pa: { name: 'Plateforme Exemple SAS', siren: '552032534', matricule: '0145' },
    mandateNumber: '552032534_0145_20261122_01',
    issuedOn: '2026-11-22',
    entryId: 'e',
    signature: { kind: 'typed' },
  });

/** The text of the signature box (bottom right of the page), as a reader extracts it. */
const signatureText = (pdf: Uint8Array) =>
  execFileSync('pdftotext', ['-x', '316', '-y', '652', '-W', '220', '-H', '80', '-', '-'], {
    input: Buffer.from(pdf),
    encoding: 'utf8',
  })
    .replace(/\s+/g, ' ')
    .trim();

/** pdffonts' rows: name, type, whether embedded and subset. */
function fonts(pdf: Uint8Array): { name: string; type: string; emb: string; sub: string }[] {
  const file = path.join(os.tmpdir(), `fonts-${crypto.randomUUID()}.pdf`);
  fs.writeFileSync(file, pdf);
  try {
    return execFileSync('pdffonts', [file], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .filter(Boolean)
      .map((l) => {
        const m = /^(\S+)\s+(.+?)\s{2,}\S+\s+(yes|no)\s+(yes|no)/.exec(l)!;
        return { name: m[1]!, type: m[2]!, emb: m[3]!, sub: m[4]! };
      });
  } finally {
    fs.rmSync(file);
  }
}
const handwriting = (pdf: Uint8Array) => fonts(pdf).filter((f) => f.name.includes('DancingScript'));
const fontFile = (pdf: Uint8Array) => /\/Length1 (\d+)/.exec(Buffer.from(pdf).toString('latin1'))?.[1];

describe('the typed signature', () => {
  it('draws French names in the handwriting font, subset-embedded, and they read back exactly (accents, hyphens, apostrophes, ligatures)', async () => {
    const subsets = new Set<string>();
    for (const [given, surname] of [
      ['Thérèse-Aimée', 'Lefebvre d’Orléans'],
      ['Œuvrard', "N'Guessan-Dupré"],
      ['Effie', 'Morel-Brûlé'],
      ['Ève', 'Giffard « fils »'],
    ] as const) {
      const pdf = await typed(given, surname);
      expect(signatureText(pdf)).toBe(`Signature ${given} ${surname}`);
      const [font, ...others] = handwriting(pdf);
      expect(others).toEqual([]);
      expect(font).toMatchObject({ type: 'CID TrueType', emb: 'yes', sub: 'yes' });
      expect(font!.name).toMatch(/^[A-Z]{6}\+DancingScript-Regular$/);
      subsets.add(font!.name);
    }
    expect(subsets.size).toBe(1); // all from the subset made once ("fi", "or", "vr" are ligatures of the font)
  });

  it('embeds the one subset made for the French repertoire, whatever the name', async () => {
    const a = await typed('Élodie', "N'Guessan-Dupré");
    const b = await typed('Jean-François', 'Lœuvre');
    expect(handwriting(a)[0]!.name).toBe(handwriting(b)[0]!.name);
    expect(fontFile(a)).toBe(fontFile(b));
  });

  it('makes a subset of its own for a name beyond that repertoire, still in the handwriting font', async () => {
    const common = await typed('Élodie', 'Martin');
    const pdf = await typed('Łucja', 'Wałęsa');
    expect(signatureText(pdf)).toBe('Signature Łucja Wałęsa');
    const [font] = handwriting(pdf);
    expect(font).toMatchObject({ emb: 'yes', sub: 'yes' });
    expect(font!.name).not.toBe(handwriting(common)[0]!.name);
    expect(Number(fontFile(pdf))).toBeLessThan(Number(fontFile(common))); // just this name's glyphs
  });

  it('falls back to the italic text font, embedded, when the handwriting font lacks a character', async () => {
    const pdf = await typed('Wei', '王');
    expect(handwriting(pdf)).toEqual([]);
    expect(fonts(pdf).find((f) => f.name.endsWith('+LiberationSans-Italic'))).toMatchObject({ emb: 'yes', sub: 'yes' });
    expect(signatureText(pdf)).toBe('Signature Wei ?');
  });
});

describe('shaping typed names from the font tables', () => {
  const require = createRequire(import.meta.url);
  const font = fontkit.create(
    fs.readFileSync(require.resolve('@expo-google-fonts/dancing-script/400Regular/DancingScript_400Regular.ttf')),
  );
  const chars = [
    ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
    ...Array.from({ length: 0x100 - 0xa0 }, (_, i) => String.fromCharCode(0xa0 + i)),
    ...'ŒœŠšŸŽž‘’‚“”„«»‹›–—…•€',
  ];
  const shaper = ligatureShaper(font, chars)!;
  const fontkitIds = (text: string) => font.layout(text, { kern: false }).glyphs.map((g) => g.id);

  it('gives the glyphs fontkit gives, for every character, every pair of characters and names with ligatures', () => {
    expect(shaper).toBeDefined();
    expect(shaper.lookups.reduce((n, l) => n + l.size, 0)).toBeGreaterThan(0); // the font has ligatures ("fi", "or"…)
    const texts = [
      ...chars,
      'Thérèse-Aimée Lefebvre d’Orléans',
      'Effie Morel-Brûlé',
      'Œuvrard Wrobel',
      'Gilles Vrignaud',
      'ffi ffl fff',
    ];
    for (const a of chars) for (const b of chars) texts.push(a + b);
    const crashes: string[] = [];
    const differ = texts.filter((t) => {
      try {
        return JSON.stringify(shaper.shape(t)) !== JSON.stringify(fontkitIds(t));
      } catch {
        crashes.push(t); // fontkit's mark positioning fails on a vowel before "·" (a null anchor in the font)
        return false;
      }
    });
    expect(differ).toEqual([]);
    expect(crashes.every((t) => t.endsWith('·') && shaper.shape(t)?.length === 2)).toBe(true);
  });

  it('draws a name fontkit cannot lay out (a vowel before a middle dot)', async () => {
    expect(() => fontkitIds('Ana·Lia')).toThrow();
    expect(signatureText(await typed('Ana·Lia', 'Puig'))).toBe('Signature Ana·Lia Puig');
  });

  it('leaves other characters to fontkit', () => {
    expect(shaper.shape('Łucja')).toBeUndefined();
    expect(shaper.shape('e\u0301')).toBeUndefined(); // a combining accent: the font's ccmp composes it
  });
});

describe('the text font without hinting', () => {
  const require = createRequire(import.meta.url);
  const load = (file: string) => fontkit.create(fs.readFileSync(require.resolve(`pdfjs-dist/standard_fonts/${file}`)));
  /** The glyphs' own instructions, if any (fontkit's decoding of glyf). */
  const instructions = (f: Font, id: number) =>
    (f.getGlyph(id) as unknown as { _decode(): { instructions?: number[] } | null })._decode()?.instructions ?? [];

  it.each(['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf', 'LiberationSans-Italic.ttf'])(
    '%s: the subset draws every outline as the font does, without instructions',
    async (file) => {
      const font = load(file);
      const glyphs = REPERTOIRE.map((c) => font.glyphForCodePoint(c.codePointAt(0)!)).filter((g) => g.id !== 0);
      const subset = await makeSubset(font, glyphs, { unhinted: true });
      const bytes = zlib.inflateSync(subset.fontFile);
      expect(bytes.length).toBe(subset.fontFileLength);
      const unhinted = fontkit.create(bytes);
      expect(unhinted.numGlyphs).toBeGreaterThan(subset.ids.size); // .notdef, and the parts of accented letters
      expect(glyphs.some((g) => instructions(font, g.id).length > 0)).toBe(true); // the font is hinted
      for (const g of glyphs) {
        const id = subset.ids.get(g.id)!;
        expect(instructions(unhinted, id)).toEqual([]);
        expect(unhinted.getGlyph(id).path.toSVG()).toBe(g.path.toSVG()); // composite accents included
        expect(unhinted.getGlyph(id).advanceWidth).toBe(g.advanceWidth);
      }
    },
  );
});
