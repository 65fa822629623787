// The audit page ending every signed mandate: what was signed (its hash before signing), by whom, when, from
// where, with which identity document views (their hashes, never the images), and when it was confirmed. Written in
// the mandate's language (its catalog's /Lang), in the mandate's embedded text font.
import type { PDFDocument } from 'pdf-lib';
import { AUDIT_TEXTS } from './audit-texts';
import { PageContent } from './content';
import { formatInstant } from './dates';
import { documentLang } from './document-lang';
import { TextFont } from './text-fonts';

export interface AuditFacts {
  mandateNumber: string;
  entryId: string;
  documentSha256: string;
  signer: { name: string; role?: string };
  /** ISO instants */
  signedAt: string;
  signedVia: 'drawn' | 'typed' | 'upload';
  signedFrom: { ip?: string; userAgent?: string };
  identity: { view: string; sha256: string; at?: string }[];
  confirmedAt: string;
  confirmedFrom: { ip?: string; userAgent?: string };
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;

/** Adds the audit page at the end of `doc` (the seal then covers it). */
export async function addAuditPage(doc: PDFDocument, a: AuditFacts): Promise<void> {
  const lang = documentLang(doc);
  const t = AUDIT_TEXTS[lang];
  const page = new PageContent(doc.addPage(A4));
  const [font, bold] = await Promise.all([TextFont.of(doc, 'regular'), TextFont.of(doc, 'bold')]);
  let y = A4[1] - MARGIN;
  const line = (text: string, opts: { bold?: boolean; size?: number } = {}) => {
    const size = opts.size ?? 9;
    // Long values (user agents, hashes) are cut into lines that fit the page.
    const f = opts.bold ? bold : font;
    let rest = f.drawable(text);
    while (rest.length) {
      let n = rest.length;
      while (n > 1 && f.width(rest.slice(0, n), size) > A4[0] - 2 * MARGIN) n--;
      page.text(rest.slice(0, n), { x: MARGIN, y, size, font: f });
      rest = rest.slice(n);
      y -= size * 1.45;
    }
  };
  const field = (label: string, value: string) => `${label}${t.colon}${value}`;
  const when = (at: string | undefined) => (at && formatInstant(at, lang)) ?? t.unknown;
  const from = (c: { ip?: string; userAgent?: string }) =>
    `${t.ip} ${c.ip ?? t.unknownIp} — ${c.userAgent ?? t.unknownBrowser}`;
  const hash = (h: string) => (/^[0-9a-f]{64}$/i.test(h) ? h : t.unknown);

  line(t.title, { bold: true, size: 13 });
  y -= 6;
  line(t.mandate(a.mandateNumber, a.entryId));
  line(t.documentHash);
  line(hash(a.documentSha256));
  y -= 4;
  line(t.signature, { bold: true, size: 10 });
  line(field(t.signer, `${a.signer.name}${a.signer.role ? ` (${a.signer.role})` : ''}`));
  line(`${field(t.date, when(a.signedAt))} — ${field(t.via, t.vias[a.signedVia])}`);
  line(field(t.from, from(a.signedFrom)));
  y -= 4;
  line(t.identity, { bold: true, size: 10 });
  for (const v of a.identity) {
    line(`${t.views[v.view] ?? v.view}${v.at ? ` (${when(v.at)})` : ''} — SHA-256${t.colon.trimEnd()}`);
    line(hash(v.sha256));
  }
  y -= 4;
  line(t.confirmation, { bold: true, size: 10 });
  line(field(t.date, when(a.confirmedAt)));
  line(field(t.from, from(a.confirmedFrom)));
  page.end();
  font.end();
  bold.end();
}
