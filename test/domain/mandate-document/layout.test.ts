// Layout of the mandate with long values: nothing overflows the page or runs into the signature box.
import { execFileSync } from 'node:child_process';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { buildMandatePdf } from '../../../domain/mandate-document/pdf';
import { frenchParty } from '../../../domain/party';
import { party } from '../../../bin/stack/sample-parties';

const build = (overrides: Record<string, unknown>) => {
  const { $schema: _s, ...p } = party('552032534', overrides);
  return buildMandatePdf({
    party: frenchParty.parse(p),
    siren: '552032534',
    pa: { name: 'Plateforme Exemple SAS', siren: '552032534', matricule: '0145' },
    mandateNumber: '552032534_0145_20261122_01',
    issuedOn: '2026-11-22',
    entryId: 'e',
    formerMatricule: '0042',
    signature: { kind: 'typed' },
  });
};
const pageText = (pdf: Uint8Array, n: number) =>
  execFileSync('pdftotext', ['-f', String(n), '-l', String(n), '-', '-'], {
    input: Buffer.from(pdf),
    encoding: 'utf8',
  }).replace(/\s+/g, ' ');

describe('mandate layout', () => {
  it('fits one page for an ordinary party, each detail on its own line', async () => {
    const pdf = await build({});
    expect((await PDFDocument.load(pdf)).getPageCount()).toBe(1);
    const lines = execFileSync('pdftotext', ['-layout', '-', '-'], { input: Buffer.from(pdf), encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim());
    expect(lines).toContain('SIREN : 552032534');
    expect(lines).toContain('Adresse : 12 rue de la Paix 75002 Paris FR');
    expect(lines.filter((l) => l.includes('?'))).toEqual([]); // nothing the font could not draw
  });

  it('wraps long names and addresses in full and moves the signature box to a new page rather than overlap it', async () => {
    const name = `Société Coopérative d’Intérêt Collectif ${'des Boulangers-Pâtissiers Réunis '.repeat(6)}`
      .trim()
      .slice(0, 255);
    const street = `Zone d’Activités ${'du Grand Chemin des Vignes '.repeat(8)}`.trim().slice(0, 255);
    const extra = `Bâtiment ${'des Anciennes Halles aux Grains '.repeat(8)}`.trim().slice(0, 255);
    const locality = `Saint-Rémy-${'de-Provence-et-des-Alpilles-'.repeat(9)}`.slice(0, 255);
    const role = `Présidente ${'du Conseil d’Administration et Directrice Générale Déléguée '.repeat(4)}`
      .trim()
      .slice(0, 255);
    const given = `Élodie-${'Marie-Thérèse-'.repeat(16)}`.slice(0, 200);
    const people = [
      { name: { given, surname: "N'Guessan-Dupré" }, role, identities: [{ label: 'CNI', code: 'X4RTBPFW4' }] },
    ];
    const pdf = await build({
      name,
      people,
      addresses: [{ street, street_extra: extra, locality, code: '13210', country: 'FR' }],
    });
    const pages = (await PDFDocument.load(pdf)).getPageCount();
    expect(pages).toBe(2); // the text filled the first page down to where the box would be
    // No word of the text lies inside the signature box (on the last page): only the box's label and the typed name.
    const allowed = new Set(['Signature', ...`${given} N'Guessan-Dupré`.split(' ')]);
    const words = execFileSync('pdftotext', ['-bbox', '-f', String(pages), '-l', String(pages), '-', '-'], {
      input: Buffer.from(pdf),
      encoding: 'utf8',
    });
    const inBox = [
      ...words.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g),
    ]
      .filter(
        (m) => Number(m[3]) > 316 && Number(m[1]) < 536 && Number(m[4]) > 841.89 - 190 && Number(m[2]) < 841.89 - 110,
      )
      .map((m) => m[5]!.replaceAll('&apos;', "'"));
    expect(inBox.filter((w) => !allowed.has(w))).toEqual([]);
    expect(pageText(pdf, pages)).toContain('Signature');
    expect(pageText(pdf, pages)).toContain("N'Guessan-Dupré");
  });
});
