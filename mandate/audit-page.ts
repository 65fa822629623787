// The audit page ending every signed mandate: what was signed (its hash before signing), by whom, when, from
// where, with which identity document views (their hashes, never the images), and when it was confirmed.
import { StandardFonts, type PDFDocument } from 'pdf-lib';
import { PageContent, textWidth } from './content';
import { winAnsi } from './pdf';

export interface AuditFacts {
  mandateNumber: string;
  entryId: string;
  documentSha256: string;
  signer: { name: string; role?: string };
  signedAt: string;
  signedVia: 'drawn' | 'typed' | 'upload';
  signedFrom: { ip?: string; userAgent?: string };
  identity: { view: string; sha256: string; at?: string }[];
  confirmedAt: string;
  confirmedFrom: { ip?: string; userAgent?: string };
}

/** Adds the audit page at the end of `doc` (the seal then covers it). */
export async function addAuditPage(doc: PDFDocument, a: AuditFacts): Promise<void> {
  const page = new PageContent(doc.addPage([595.28, 841.89]));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  let y = 785;
  const line = (text: string, opts: { bold?: boolean; size?: number } = {}) => {
    const size = opts.size ?? 9;
    // Long values (user agents, hashes) are cut into lines that fit the page.
    const f = opts.bold ? bold : font;
    let rest = winAnsi(text);
    while (rest.length) {
      let n = rest.length;
      while (n > 1 && textWidth(f, rest.slice(0, n), size) > 483) n--;
      page.text(rest.slice(0, n), { x: 56, y, size, font: f });
      rest = rest.slice(n);
      y -= size * 1.45;
    }
  };
  const from = (c: { ip?: string; userAgent?: string }) => `IP ${c.ip ?? 'inconnue'} — ${c.userAgent ?? 'navigateur inconnu'}`;
  line('PISTE D’AUDIT / AUDIT TRAIL', { bold: true, size: 13 });
  y -= 6;
  line(`Mandat n° ${a.mandateNumber} — entrée ${a.entryId}`);
  line('Empreinte SHA-256 du document avant signature :');
  line(a.documentSha256);
  y -= 4;
  line('Signature', { bold: true, size: 10 });
  line(`Signataire : ${a.signer.name}${a.signer.role ? ` (${a.signer.role})` : ''}`);
  line(`Date (UTC) : ${a.signedAt} — mode : ${{ drawn: 'signature manuscrite', typed: 'signature saisie', upload: 'document signé hors ligne' }[a.signedVia]}`);
  line(`Depuis : ${from(a.signedFrom)}`);
  y -= 4;
  line('Pièce d’identité', { bold: true, size: 10 });
  for (const v of a.identity) {
    line(`${{ front: 'recto', back: 'verso', page: 'page passeport' }[v.view] ?? v.view}${v.at ? ` (${v.at})` : ''} — SHA-256 :`);
    line(v.sha256);
  }
  y -= 4;
  line('Confirmation', { bold: true, size: 10 });
  line(`Date (UTC) : ${a.confirmedAt}`);
  line(`Depuis : ${from(a.confirmedFrom)}`);
  page.end();
}
