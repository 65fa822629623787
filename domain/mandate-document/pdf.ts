// The mandate (DSE v3.2 model form, seven parts) as a PDF, pre-filled from the party, optionally signed.
import { PDFDocument } from 'pdf-lib';
import { PageContent } from './content';
import type { Party } from '../party';
import { formatDay } from './dates';
import { setDocumentLang } from './document-lang';
import { embedHandwriting } from './fonts';
import { TextFont } from './text-fonts';
import { TEXTS, type Lang, type MandateVars } from './texts';
import { signerOf } from './signer';
import type { InvoicingAddresses } from '../party/invoicing-addresses';

export interface MandateInput {
  party: Party;
  siren: string;
  /** The PA appointed: its SIREN, or its matricule when it has none (DSE v3.2 model form, part 2). */
  pa: { name: string; siren?: string; matricule: string };
  mandateNumber: string;
  issuedOn: string; // YYYY-MM-DD
  entryId: string;
  formerMatricule?: string;
  /** Part 4: the addresses entrusted; every address of the SIREN when absent. */
  invoicingAddresses?: InvoicingAddresses;
  /** French by default; English on request. */
  lang?: Lang;
  signature?: { kind: 'typed' } | { kind: 'drawn'; image: Uint8Array; mime: 'image/png' | 'image/jpeg' };
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const WIDTH = A4[0] - 2 * MARGIN;
export const SIGNATURE_BOX = { x: MARGIN + 260, y: 110, width: 220, height: 80 };
/** How far a list item's text stands from the margin, its bullet in between. */
const ITEM_INDENT = 16;

function wrap(text: string, font: TextFont, size: number, width: number): string[] {
  const lines: string[] = [];
  const space = font.width(' ', size);
  // Split before replacing what the font cannot draw: a line break is not a character to draw, nor a '?'.
  for (const para of text.split('\n').map((p) => font.drawable(p))) {
    let line = '';
    let lineWidth = 0;
    for (const word of para.split(/\s+/)) {
      // Widths are summed word by word (measuring the growing line again for every word made long texts slow).
      const wordWidth = font.width(word, size);
      if (line && lineWidth + space + wordWidth <= width) {
        line = `${line} ${word}`;
        lineWidth += space + wordWidth;
        continue;
      }
      if (line) lines.push(line);
      line = word;
      lineWidth = wordWidth;
      while (lineWidth > width) {
        // a single word longer than the line: cut it
        let cut = line.length - 1;
        while (cut > 1 && font.width(line.slice(0, cut), size) > width) cut--;
        lines.push(line.slice(0, cut));
        line = line.slice(cut);
        lineWidth = font.width(line, size);
      }
    }
    lines.push(line);
  }
  return lines;
}

/** Writes top-down and turns the page when the text reaches the bottom margin. */
class Writer {
  y = A4[1] - MARGIN;
  readonly pages: PageContent[];
  constructor(
    private doc: PDFDocument,
    private font: TextFont,
    private bold: TextFont,
  ) {
    this.pages = [new PageContent(doc.addPage(A4))];
  }
  get page(): PageContent {
    return this.pages.at(-1)!;
  }
  text(text: string, opts: { size?: number; bold?: boolean; gap?: number; indent?: number } = {}) {
    const size = opts.size ?? 10;
    const font = opts.bold ? this.bold : this.font;
    const indent = opts.indent ?? 0;
    for (const line of wrap(text, font, size, WIDTH - indent)) {
      if (this.y < MARGIN) this.newPage();
      this.page.text(line, { x: MARGIN + indent, y: this.y, size, font });
      this.y -= size * 1.35;
    }
    this.y -= opts.gap ?? 4;
  }
  /** A list item: a bullet in the margin of its text, the text's lines aligned after it. */
  item(text: string) {
    if (this.y < MARGIN) this.newPage();
    this.page.text('•', { x: MARGIN + 4, y: this.y, size: 10, font: this.font });
    this.text(text, { indent: ITEM_INDENT, gap: 2 });
  }
  newPage() {
    this.pages.push(new PageContent(this.doc.addPage(A4)));
    this.y = A4[1] - MARGIN;
  }
  heading(text: string) {
    this.y -= 4;
    this.text(text, { bold: true, size: 11, gap: 2 });
  }
}

const addressLine = (party: Party): string | undefined => {
  const a = party.addresses?.[0];
  return a ? [a.num, a.street, a.street_extra, a.code, a.locality, a.country].filter(Boolean).join(' ') : undefined;
};

export async function buildMandatePdf(m: MandateInput): Promise<Uint8Array> {
  const signer = signerOf(m.party);
  const doc = await PDFDocument.create({ updateMetadata: false }); // the metadata below, without pdf-lib's own
  const issued = new Date(`${m.issuedOn}T00:00:00Z`);
  // In the mandate's language, as its text.
  doc.setTitle(`${m.lang === 'en' ? 'Mandate' : 'Mandat'} ${m.mandateNumber}`);
  doc.setSubject(`${TEXTS[m.lang ?? 'fr'].title} — ${m.lang === 'en' ? 'entry' : 'entrée'} ${m.entryId}`);
  doc.setKeywords([m.mandateNumber, m.entryId]);
  doc.setProducer('pa-party-registration');
  doc.setCreationDate(issued);
  doc.setModificationDate(issued);

  const lang = m.lang ?? 'fr';
  setDocumentLang(doc, lang);
  const [font, bold] = await Promise.all([TextFont.of(doc, 'regular'), TextFont.of(doc, 'bold')]);
  const w = new Writer(doc, font, bold);
  const t = TEXTS[lang];
  const start = m.invoicingAddresses?.start;
  const v: MandateVars = {
    number: m.mandateNumber,
    company: m.party.name,
    siren: m.siren,
    address: addressLine(m.party) ?? t.noAddress,
    city: m.party.addresses?.[0]?.locality?.trim() || undefined,
    paName: m.pa.name,
    paSiren: m.pa.siren || undefined,
    matricule: m.pa.matricule,
    issuedOn: formatDay(m.issuedOn, lang),
    startsOn: start && start > m.issuedOn ? formatDay(start, lang) : undefined,
    former: m.formerMatricule,
    given: signer.given,
    surname: signer.surname,
    role: signer.role, // never the identity document's number: not part of the form
  };
  w.text(t.title, { bold: true, size: 14, gap: 2 });
  w.text(t.number(v), { size: 10, gap: 8 });
  w.text(t.authorises, { gap: 2 });
  for (const item of t.authorisations) w.item(item);
  w.y -= 4;
  w.heading(t.s1);
  w.text(t.company(v));
  w.heading(t.s2);
  w.text(t.pa(v));
  w.heading(t.s3);
  w.text(t.effect(v));
  w.heading(t.s4);
  const entrusted = m.invoicingAddresses;
  if (!entrusted || entrusted.entrust === 'all') w.text(t.addresses(v));
  else w.text(t.listedAddresses, { gap: 2 });
  // Listed, they are what is entrusted; beside the wildcard, what is registered now (more than the SIREN's alone).
  const listed = entrusted?.entrust === 'listed' || (entrusted?.addresses.length ?? 0) > 1;
  if (entrusted && entrusted.entrust === 'all' && listed) w.text(t.registeredNow, { gap: 2 });
  if (entrusted && listed) for (const a of entrusted.addresses) w.item(t.address(a));
  w.heading(t.s5);
  if (m.formerMatricule) {
    w.text(t.former(v));
    w.text(t.consent(v), { bold: true });
  } else {
    w.text(t.noFormer);
  }
  w.heading(t.s6);
  w.text(m.mandateNumber);
  w.heading(t.s7);
  w.text(t.signer(v));

  // Long names or addresses push the text down: the closing line and the signature box never overlap it, they move
  // to the next page together.
  if (w.y - 20 < SIGNATURE_BOX.y + SIGNATURE_BOX.height + 12) w.newPage();
  w.y -= 6;
  w.text(t.signedAt(v));
  const signaturePage = w.page;
  const box = SIGNATURE_BOX;
  signaturePage.rectangle({ ...box, borderColor: [0.4, 0.4, 0.4], borderWidth: 0.75 });
  signaturePage.text(t.signature, { x: box.x + 4, y: box.y + box.height - 12, size: 8, font });
  if (m.signature?.kind === 'typed') {
    const full = `${signer.given} ${signer.surname}`.normalize('NFC');
    // The name as large as fits the box (up to 24 pt), at a width of `width` points per point of size.
    const fitted = (width: number) => {
      const size = Math.min(24, (box.width - 16) / Math.max(1, width));
      return { x: box.x + 8, y: box.y + box.height / 2 - size / 3, size, color: [0.05, 0.1, 0.45] as const };
    };
    const script = await embedHandwriting(doc, full);
    if (script) signaturePage.show(script.hex, script.font, fitted(script.width));
    else {
      // A character the handwriting font lacks: the italic text font, what it cannot draw replaced.
      const italic = await TextFont.of(doc, 'italic');
      const name = italic.drawable(full);
      signaturePage.text(name, { ...fitted(italic.width(name, 1)), font: italic });
      italic.end();
    }
  } else if (m.signature?.kind === 'drawn') {
    const img =
      m.signature.mime === 'image/png' ? await doc.embedPng(m.signature.image) : await doc.embedJpg(m.signature.image);
    const scale = Math.min((box.width - 16) / img.width, (box.height - 18) / img.height);
    signaturePage.page.drawImage(img, {
      x: box.x + 8,
      y: box.y + 4,
      width: img.width * scale,
      height: img.height * scale,
    });
  }
  for (const p of w.pages) p.end();
  font.end();
  bold.end();
  // No pauses between objects: pdf-lib yields to the event loop every 50 objects, which costs more than it saves here.
  return doc.save({ useObjectStreams: false, objectsPerTick: Infinity });
}
