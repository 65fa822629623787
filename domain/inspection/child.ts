// A child process of the inspection pool: imports once (pdf.js, sharp), then inspects one file at a time.
// It has no access to the store or the network: files in, verdicts out, over the IPC channel.
import { inspectImage } from './inspect-image';
import { inspectMandate } from './inspect-pdf';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { loadPdfjs, pdfText } from './pdf-text';
import { RefusedFile } from './refusal';
import type { Answer, Job } from './jobs';
import { addAuditPage } from '../mandate-document/audit-page';
import { sealPdf } from '../mandate-document/seal';

// Libraries warn on odd files (pdf-lib, pdf.js): the file's verdict says what matters.
console.log = console.warn = console.info = () => undefined;

async function run(job: Job): Promise<unknown> {
  if (job.kind === 'mandate') return inspectMandate(job.bytes, job.reference, job.superseded);
  if (job.kind === 'seal') return sealPdf(job.pdf, job.key, job.info, (doc) => addAuditPage(doc, job.facts));
  return inspectImage(job.bytes, job.claimed, job.purpose);
}

process.on('message', (msg: { id: number; job: Job }) => {
  run(msg.job).then(
    (result) => send({ id: msg.id, ok: true, result } as Answer),
    (err) =>
      send(
        err instanceof RefusedFile
          ? { id: msg.id, ok: false, refusal: err.refusal }
          : { id: msg.id, ok: false, error: String((err as Error)?.stack ?? err) },
      ),
  );
});
const send = (a: Answer) => process.send!(a);
// The API went away: so does its child.
process.on('disconnect', () => process.exit(0));

// Warm: pdf.js loads its (in-process) worker on the first document, sharp its codecs on the first image.
await loadPdfjs();
const blank = await PDFDocument.create();
blank.addPage();
await pdfText(await blank.save(), 1).catch(() => undefined);
await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } })
  .png()
  .toBuffer();
process.send!('ready');
