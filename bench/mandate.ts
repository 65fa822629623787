// `npm run bench:mandate`: the time to generate, sign (typed, handwriting font), add the audit page and seal one
// mandate, next to a floor measured in the same run — pdf-lib creating and saving a one-page PDF with one line of
// text. Prints medians and the ratio (goal ≤ 3×). Env: BENCH_ITERATIONS (default 100).
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { addAuditPage, type AuditFacts } from '../domain/mandate-document/audit-page';
import { buildMandatePdf } from '../domain/mandate-document/pdf';
import { sealPdf } from '../domain/mandate-document/seal';
import { frenchParty } from '../domain/party';
import { generateSelfSigned } from '../platform/crypto/dev-certificates';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 100);
const key = generateSelfSigned('Bench PA (mandate seal)');
const party = frenchParty.parse({
  name: 'Boulangerie Exemple SAS',
  tax_id: { country: 'FR', code: '27552032534' },
  identities: [{ type: 'SIREN', code: '552032534' }],
  addresses: [{ street: '12 rue de la Paix', locality: 'Paris', code: '75002', country: 'FR' }],
  people: [
    { name: { given: 'Élodie', surname: "N'Guessan-Dupré" }, role: 'Présidente', identities: [{ code: 'X4RTBPFW4' }] },
  ],
});

async function floor(): Promise<void> {
  const doc = await PDFDocument.create();
  doc.addPage().drawText('Mandat 552032534_0145_20261122_01', { font: await doc.embedFont(StandardFonts.Helvetica) });
  await doc.save();
}

async function mandate(): Promise<void> {
  const signed = await buildMandatePdf({
    party,
    siren: '552032534',
    pa: { name: 'Plateforme Exemple SAS', siren: '552032534', matricule: '0145' },
    mandateNumber: '552032534_0145_20261122_01',
    issuedOn: '2026-11-22',
    entryId: 'bench',
    signature: { kind: 'typed' },
  });
  const facts: AuditFacts = {
    mandateNumber: '552032534_0145_20261122_01',
    entryId: 'bench',
    documentSha256: '0'.repeat(64),
    signer: { name: "Élodie N'Guessan-Dupré", role: 'Présidente' },
    signedAt: new Date().toISOString(),
    signedVia: 'typed',
    signedFrom: { ip: '127.0.0.1', userAgent: 'bench' },
    identity: [{ view: 'page', sha256: '1'.repeat(64) }],
    confirmedAt: new Date().toISOString(),
    confirmedFrom: { ip: '127.0.0.1', userAgent: 'bench' },
  };
  await sealPdf(signed, key, { name: 'Bench', reason: 'bench', location: 'France', contact: 'bench' }, (doc) =>
    addAuditPage(doc, facts),
  );
}

const sample = async (fn: () => Promise<void>): Promise<number> => {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// Warm-up until the JIT has settled: pdf-lib's one-page save takes ~9 ms cold and under 1 ms warm.
for (let i = 0; i < 100; i++) {
  await floor();
  if (i % 4 === 0) await mandate();
}
// The two are measured alternately, so that both see the same state of the machine (GC, CPU frequency, neighbours).
const floors: number[] = [];
const mandates: number[] = [];
for (let i = 0; i < iterations; i++) {
  floors.push(await sample(floor));
  mandates.push(await sample(mandate));
}
const f = median(floors);
const m = median(mandates);
console.log(`${iterations} iterations after warm-up, Node ${process.version}, medians`);
console.log(`floor: pdf-lib one-page PDF, one line      ${f.toFixed(2)} ms`);
console.log(`mandate: build + sign + audit page + seal  ${m.toFixed(2)} ms`);
console.log(`ratio ${(m / f).toFixed(2)}× (goal ≤ 3×)`);
