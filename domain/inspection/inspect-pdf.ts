// "Pre-signed means signed": an uploaded mandate is accepted with evidence that it was signed — a digital signature
// over our mandate, a visible signature added to it (ink or stamp annotation, an image placed on a page), or a scan
// (pages that are images, flagged for the operator to check by eye). Active content is refused whatever else holds.
import { LimitError, PDF_LIMITS, UnreadableError } from './limits';
import { pdfText, textCarries } from './pdf-text';
import { isOurMandate, referenceWords, type MandateReference } from './mandate-text';
import { verifiedSignature } from './pdf-signature';
import { walkPdf, type PdfFacts } from './pdf-walk';
import { ContentBudget } from './content-budget';
import { refuse, RefusedFile } from './refusal';

import type { UploadEvidence } from '../../platform/store/mandates';
export type { UploadEvidence };

/** What an upload showed: its evidence and, for a digital signature, its signer's certificate and the others (DER). */
export interface InspectedMandate {
  evidence: UploadEvidence;
  certificates?: { signer?: Uint8Array; others: Uint8Array[] };
}

/** A page is an image when images cover at least this share of it. */
const SCAN_COVERAGE = 0.5;

/** `superseded`: the entry's earlier mandate numbers; an upload of one of those is refused naming the current one. */
export async function inspectMandate(
  bytes: Uint8Array,
  reference: MandateReference,
  superseded: string[] = [],
): Promise<InspectedMandate> {
  const { mandateNumber } = reference;
  if (Buffer.from(bytes.subarray(0, 1024)).indexOf('%PDF-') === -1) refuse('not-a-pdf', 'is not a PDF document');
  // One budget for the file and the revisions its signatures signed: pdf.js reads the text of each.
  const counted = new ContentBudget(PDF_LIMITS);
  const facts = await walk(bytes, counted);
  if (facts.active.length) {
    refuse(
      'active-content',
      `is a PDF with active content (${facts.active.join(', ')}): save or print it again as a plain PDF`,
    );
  }
  let badSignature = false;
  const ours = await referenceWords(reference);
  const revisionsRead = new Set<number>();
  for (const sig of facts.signatures) {
    const verified = await verifiedSignature(bytes, sig);
    const revision = verified?.revision;
    if (!revision) badSignature = true;
    else if (!revisionsRead.has(revision.length)) {
      revisionsRead.add(revision.length);
      if (revision.length < bytes.length) await walk(revision, counted); // what pdf.js reads in it, within the limits
      if (isOurMandate(await text(revision), mandateNumber, ours))
        return {
          evidence: 'digital-signature',
          certificates: { ...(verified.signer && { signer: verified.signer }), others: verified.others },
        };
    }
  }
  if (facts.pages.every((p) => p.imageCoverage >= SCAN_COVERAGE)) return { evidence: 'scan' };
  const plain = await text(bytes);
  if (!isOurMandate(plain, mandateNumber, ours)) {
    const old = textCarries(plain, mandateNumber) ? undefined : superseded.find((n) => textCarries(plain, n));
    if (old) {
      refuse(
        'superseded-mandate',
        `is mandate ${old}, which was replaced by mandate ${mandateNumber} when the party's details changed: download mandate ${mandateNumber} (GET agreement), sign it and upload it`,
      );
    }
    refuse(
      'not-this-mandate',
      `is not the mandate of this entry: it must be mandate ${mandateNumber} (download it with GET agreement)`,
    );
  }
  if (facts.pages.some((p) => p.images > 0 || p.annotations.some((a) => a === 'Ink' || a === 'Stamp')))
    return { evidence: 'visible-signature' };
  if (badSignature)
    refuse('bad-signature', 'carries a digital signature that does not verify over the document it signed');
  return refuse(
    'not-signed',
    `is mandate ${mandateNumber}, but no signature could be found on it (a signature drawn as vector paths, printed to PDF or flattened, cannot be recognised): sign it in the app, sign it digitally, add the signature as an image or an ink or stamp annotation, or print it, sign it and upload a scan`,
  );
}

async function walk(bytes: Uint8Array, counted: ContentBudget): Promise<PdfFacts> {
  try {
    return await walkPdf(bytes, PDF_LIMITS, counted);
  } catch (err) {
    throw asRefusal(err);
  }
}

async function text(bytes: Uint8Array): Promise<string> {
  try {
    return await pdfText(bytes, PDF_LIMITS.pages);
  } catch (err) {
    throw asRefusal(err);
  }
}

function asRefusal(err: unknown): RefusedFile {
  if (err instanceof RefusedFile) return err;
  if (err instanceof LimitError)
    return new RefusedFile({
      sizeLimit: err.sizeLimit,
      code: 'too-complex',
      reason: `is too complex to check: ${err.message}`,
    });
  // pdf-lib's EncryptedPDFError keeps the name "Error" (its message speaks of `ignoreEncryption`): known by its message too.
  if (
    (err as Error).name === 'EncryptedPDFError' ||
    (err as Error).name === 'PasswordException' ||
    /PDFDocument\.load` is encrypted/.test((err as Error).message ?? '')
  ) {
    return new RefusedFile({ code: 'encrypted-pdf', reason: 'is an encrypted PDF: upload it without a password' });
  }
  // A structure that loops or nests without end overflows a recursive reader's stack (pdf-lib's page tree, pdf.js).
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return new RefusedFile({
      code: 'unreadable-pdf',
      reason: 'is not a readable PDF (its structure loops or is nested too deeply)',
    });
  }
  const why = err instanceof UnreadableError ? err.message : ((err as Error).message?.split('\n')[0] ?? String(err));
  return new RefusedFile({ code: 'unreadable-pdf', reason: `is not a readable PDF (${why})` });
}
