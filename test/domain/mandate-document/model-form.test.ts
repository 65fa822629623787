// The mandate against the DSE v3.2 model form ("accord formel"), read back as a company, its lawyer and a PDF/A
// checker would, with poppler's tools: the text (pdftotext), the fonts (pdffonts) and the pages drawn (pdftoppm).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addAuditPage } from '../../../domain/mandate-document/audit-page';
import { mandateIssuer } from '../../../domain/mandate-document/number';
import { buildMandatePdf, type MandateInput } from '../../../domain/mandate-document/pdf';
import { sealPdf } from '../../../domain/mandate-document/seal';
import type { Lang } from '../../../domain/mandate-document/texts';
import { frenchParty } from '../../../domain/party';
import { defaultInvoicingAddresses, parseInvoicingAddresses } from '../../../domain/party/invoicing-addresses';
import { party } from '../../../bin/stack/sample-parties';
import { png } from '../../../bin/stack/sample-images';
import { pdfText } from '../../support/pdf-text';
import { SEAL_INFO, auditFacts } from '../../support/seal-facts';
import { testSealKey } from '../../support/seal-key';

const ID_NUMBER = 'X4RTBPFW4'; // the signer's identity document, in the party (fixtures.ts)
const NUMBER = '552032534_987654325_20261122_01';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mandate-model-form-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The fixture's party (signer Élodie N'Guessan-Dupré, Paris) with `overrides`. */
function partyWith(overrides: Record<string, unknown> = {}) {
  const { $schema: _s, ...p } = party('552032534', overrides);
  return frenchParty.parse(p);
}

function reference(overrides: Partial<MandateInput> = {}): MandateInput {
  return {
    party: partyWith(),
    siren: '552032534',
    pa: { name: 'Plateforme Exemple SAS', siren: '987654325', matricule: '0145' },
    mandateNumber: NUMBER,
    issuedOn: '2026-11-22',
    entryId: 'entry-1',
    signature: { kind: 'typed' },
    ...overrides,
  };
}

/** The signed mandate in `lang` as the company gets it back: with the audit page, sealed. */
async function finalMandate(lang: Lang, overrides: Partial<MandateInput> = {}): Promise<Uint8Array> {
  const signed = await buildMandatePdf({ ...reference(overrides), lang });
  return sealPdf(signed, testSealKey(), SEAL_INFO, (doc) =>
    addAuditPage(doc, { ...auditFacts('typed'), mandateNumber: NUMBER }),
  );
}

const file = (pdf: Uint8Array) => {
  const f = path.join(dir, `${crypto.randomUUID()}.pdf`);
  fs.writeFileSync(f, pdf);
  return f;
};
const pageText = (pdf: Uint8Array, page: number) =>
  execFileSync('pdftotext', ['-layout', '-f', String(page), '-l', String(page), file(pdf), '-'], {
    encoding: 'utf8',
  }).replace(/\s+/g, ' ');
const pageCount = (pdf: Uint8Array) =>
  Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file(pdf)], { encoding: 'utf8' }))![1]);

/** pdffonts' rows: the font's name and whether it is embedded. */
function fonts(pdf: Uint8Array): { name: string; emb: string }[] {
  return execFileSync('pdffonts', [file(pdf)], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((l) => {
      const m = /^(\S+)\s+.+?\s+(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$/.exec(l)!;
      return { name: m[1]!, emb: m[2]! };
    });
}

interface Rendered {
  width: number;
  height: number;
  /** grey level of a pixel, 0 black to 255 white */
  at(x: number, y: number): number;
}

/** Each page drawn in grey at 72 dpi (a pixel a point) by pdftoppm, and what it reported (errors, font problems). */
function rendered(pdf: Uint8Array): { pages: Rendered[]; report: string } {
  const prefix = path.join(dir, crypto.randomUUID());
  const report = execFileSync('sh', ['-c', 'pdftoppm -r 72 -gray "$1" "$2" 2>&1', 'sh', file(pdf), prefix], {
    encoding: 'utf8',
  });
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith(`${path.basename(prefix)}-`))
    .sort();
  const pages = files.map((f) => {
    const bytes = fs.readFileSync(path.join(dir, f)); // PGM: "P5 width height 255\n" then a byte a pixel
    const [header, width, height] = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 40).toString('latin1'))!;
    const data = bytes.subarray(header.length);
    return { width: Number(width), height: Number(height), at: (x: number, y: number) => data[y * Number(width) + x]! };
  });
  return { pages, report };
}

/** The pixels inked (darker than near-white) in the page's side margins, as "x,y". */
function inkInSideMargins(page: Rendered, margin: number): string[] {
  const inked: string[] = [];
  for (let y = 0; y < page.height; y++) {
    for (let i = 0; i < margin; i++)
      for (const x of [i, page.width - 1 - i]) if (page.at(x, y) < 250) inked.push(`${x},${y}`);
  }
  return inked;
}

describe('the mandate follows the model form', () => {
  it('carries the model’s title and what the company authorises, in French and in English', async () => {
    const fr = pageText(await finalMandate('fr'), 1);
    expect(fr).toContain(
      'MANDAT DE RACCORDEMENT À UNE PLATEFORME AGRÉÉE ET DE DEMANDE DE MISE À JOUR DES ADRESSES DANS L’ANNUAIRE',
    );
    expect(fr).toContain('autorise la plateforme agréée désignée en partie 2 (le mandataire) à :');
    expect(fr).toContain(
      '• inscrire et mettre à jour ses adresses de facturation électronique (partie 4) dans l’annuaire du portail public de facturation (PPF) ;',
    );
    expect(fr).toContain('• recevoir pour son compte les factures électroniques qui lui sont adressées ;');
    expect(fr).toContain(
      '• la publier sur le réseau Peppol, avec une carte de visite publique dans l’annuaire Peppol (Peppol Directory)',
    );

    const en = pageText(await finalMandate('en'), 1);
    expect(en).toContain(
      'MANDATE APPOINTING AN APPROVED PLATFORM AND REQUESTING THE UPDATE OF ADDRESSES IN THE DIRECTORY',
    );
    expect(en).toContain('authorises the approved platform named in part 2 (the agent) to:');
    expect(en).toContain(
      '• register and update its e-invoicing addresses (part 4) in the directory (Annuaire) of the public invoicing portal (PPF);',
    );
    expect(en).toContain('• receive on its behalf the electronic invoices addressed to it;');
    expect(en).toContain('• publish it on the Peppol network, with a public business card in the Peppol Directory');
  });

  it('numbers the mandate with the PA’s SIREN (its matricule only without one) and names the PA by it', async () => {
    expect(mandateIssuer({ siren: '987654325', matricule: '0145' })).toBe('987654325');
    expect(mandateIssuer({ matricule: '0145' })).toBe('0145');
    const text = pageText(await finalMandate('fr'), 1);
    expect(text).toContain(`Mandat n° ${NUMBER}`);
    expect(text).toContain('SIREN : 987654325 — matricule de plateforme : 0145');
    const noSiren = pageText(
      await finalMandate('fr', { pa: { name: 'Plateforme Exemple SAS', matricule: '0145' } }),
      1,
    );
    expect(noSiren).toContain('Dénomination : Plateforme Exemple SAS Matricule de plateforme : 0145');
  });

  it('lists in part 4 the addresses entrusted, or entrusts every address of the SIREN', async () => {
    const listed = parseInvoicingAddresses('552032534', {
      entrust: 'listed',
      addresses: [
        {},
        { siret: '55203253400018', routing_code: { id: 'ACHATS', label: 'Service achats' } },
        { suffix: 'EU' },
      ],
    });
    const fr = pageText(await finalMandate('fr', { invoicingAddresses: listed }), 1);
    expect(fr).toContain('4. Adresses de facturation confiées Les adresses suivantes, et elles seules :');
    expect(fr).toContain('• 552032534 — adresse SIREN');
    expect(fr).toContain(
      '• 552032534_55203253400018_ACHATS — établissement SIRET 55203253400018, code routage ACHATS (« Service achats »)',
    );
    expect(fr).toContain('• 552032534_EU — suffixe d’adressage EU');
    expect(fr).not.toContain('qui en dépendent');
    const en = pageText(await finalMandate('en', { invoicingAddresses: listed }), 1);
    expect(en).toContain('The following addresses, and only these:');
    expect(en).toContain(
      '• 552032534_55203253400018_ACHATS — establishment SIRET 55203253400018, routing code ACHATS (“Service achats”)',
    );
    // Every address (the model form's wildcard), naming those registered now when there are more than the SIREN's.
    const all = pageText(await finalMandate('fr', { invoicingAddresses: { ...listed, entrust: 'all' } }), 1);
    expect(all).toContain(
      'SIREN 552032534 (adresse SIREN), ainsi que les adresses SIREN_SIRET, SIREN_SIRET_ROUTAGE et SIREN_SUFFIXE qui en dépendent. Adresses inscrites à la signature :',
    );
    expect(all).toContain('• 552032534_EU — suffixe d’adressage EU');
    const sirenOnly = pageText(
      await finalMandate('fr', { invoicingAddresses: defaultInvoicingAddresses('552032534') }),
      1,
    );
    expect(sirenOnly).toContain('qui en dépendent. 5. Plateforme précédente');
  });

  it('takes effect on the day the addresses start, when later than its issue', async () => {
    const later = { ...defaultInvoicingAddresses('552032534'), start: '2027-01-04' };
    expect(pageText(await finalMandate('fr', { invoicingAddresses: later }), 1)).toContain(
      'Le mandat prend effet le 04/01/2027 : les adresses de la partie 4 sont inscrites à l’annuaire à compter de ce jour.',
    );
    expect(pageText(await finalMandate('en', { invoicingAddresses: later }), 1)).toContain(
      'The mandate takes effect on 4 January 2027: the addresses of part 4 are entered in the directory from that day.',
    );
  });

  it('writes dates as the language does, never ISO, and closes with where and when it is signed', async () => {
    const fr = await finalMandate('fr');
    expect(pageText(fr, 1)).toContain('Le mandat prend effet le 22/11/2026,');
    expect(pageText(fr, 1)).toContain('Fait à Paris le 22/11/2026');
    expect(pageText(fr, 2)).toContain('Date : 22/11/2026 à 10:00:00 UTC');
    const en = await finalMandate('en');
    expect(pageText(en, 1)).toContain('The mandate takes effect on 22 November 2026,');
    expect(pageText(en, 1)).toContain('Signed at Paris on 22 November 2026');
    expect(pageText(en, 2)).toContain('Date: 22 November 2026 at 10:00:00 UTC');
    for (const pdf of [fr, en]) expect(pdfText(pdf)).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    // Without a town, the date alone.
    const noTown = partyWith({ addresses: [{ street: '12 rue de la Paix', code: '75002', country: 'FR' }] });
    expect(pageText(await finalMandate('fr', { party: noTown }), 1)).toContain('Fait le 22/11/2026');
  });

  it('prints no identity document number, in the text or anywhere in the file', async () => {
    for (const lang of ['fr', 'en'] as const) {
      const pdf = await finalMandate(lang);
      expect(pdfText(pdf)).not.toContain(ID_NUMBER);
      expect(pdfText(pdf)).not.toMatch(/Pièce d’identité n°|Identity document no\./);
      expect(Buffer.from(pdf).includes(ID_NUMBER)).toBe(false);
    }
  });

  it('writes the audit page in the mandate’s language', async () => {
    const fr = pageText(await finalMandate('fr'), 2);
    expect(fr).toContain('PISTE D’AUDIT');
    expect(fr).toContain('Signataire : Élodie Martin (Présidente)');
    expect(fr).toContain('mode : signature saisie');
    expect(fr).not.toContain('AUDIT TRAIL');
    const en = pageText(await finalMandate('en'), 2);
    expect(en).toContain('AUDIT TRAIL');
    expect(en).toContain('Signatory: Élodie Martin (Présidente)');
    expect(en).toContain('method: typed signature');
    expect(en).toContain('Passport page — SHA-256:');
    expect(en).not.toMatch(/PISTE|Signataire|inconnu/);
  });

  it('embeds every font it uses, the audit page reusing the mandate’s', async () => {
    const mandates = [
      await finalMandate('fr'), // typed: the handwriting font
      await finalMandate('en', {
        formerMatricule: '0042',
        signature: { kind: 'drawn', image: png(), mime: 'image/png' },
      }),
      // a name the handwriting font cannot draw: the italic text font
      await finalMandate('fr', {
        party: partyWith({ people: [{ name: { given: 'Wei', surname: '王' }, identities: [{ code: ID_NUMBER }] }] }),
      }),
    ];
    for (const pdf of mandates) {
      const rows = fonts(pdf);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((f) => f.emb !== 'yes')).toEqual([]);
      expect(rows.map((f) => f.name).filter((n) => /Helvetica|Times|Courier/.test(n))).toEqual([]);
    }
    // The audit page adds its own font dictionaries over the font programs already in the file: no second copy.
    const signed = await buildMandatePdf({ ...reference(), lang: 'fr' });
    const sealed = await finalMandate('fr');
    expect(sealed.length - signed.length).toBeLessThan(20_000);
  });

  it('draws its pages within the margins, in both languages, long names and all', async () => {
    const long = `Société Coopérative d’Intérêt Collectif ${'des Boulangers-Pâtissiers Réunis '.repeat(6)}`
      .trim()
      .slice(0, 255);
    for (const pdf of [
      await finalMandate('fr'),
      await finalMandate('en', { formerMatricule: '0042' }),
      await finalMandate('fr', { party: partyWith({ name: long }) }),
    ]) {
      const { pages, report } = rendered(pdf);
      expect(report).toBe(''); // poppler found nothing wrong with the fonts or the content
      expect(pages).toHaveLength(pageCount(pdf));
      for (const page of pages) {
        expect([Math.round(page.width / 10), Math.round(page.height / 10)]).toEqual([60, 84]); // A4: 595 × 842 pt
        // Nothing drawn in the side margins (56 pt, less a little for anti-aliasing): no line runs off the text.
        expect(inkInSideMargins(page, 54)).toEqual([]);
        // And something drawn between them.
        let dark = 0;
        for (let y = 0; y < page.height; y++)
          for (let x = 56; x < page.width - 56; x++) if (page.at(x, y) < 128) dark++;
        expect(dark).toBeGreaterThan(500);
      }
      expect(pageText(pdf, 1)).toMatch(/^ ?MANDAT|^ ?MANDATE/);
    }
  });
});
