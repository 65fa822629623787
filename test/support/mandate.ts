// Puts an entry in the state the directory and Peppol steps require: a signed, submitted and approved mandate.
import crypto from 'node:crypto';
import type { Queryable } from '../../platform/store/db';
import type { InvoicingAddresses } from '../../domain/party/invoicing-addresses';
import { markSubmitted, storeSignedPdf } from '../../platform/store/mandates';
import { issueMandate } from '../../platform/store/mandate-numbers';
import { decisionEffect } from '../../platform/store/approval-decisions';
import { runEffect } from '../../platform/store/statement-effect';

export async function approveMandate(
  db: Queryable,
  a: { entryId: string; jobId?: string; formerMatricule?: string; invoicingAddresses?: InvoicingAddresses },
) {
  const jobId = a.jobId ?? crypto.randomUUID();
  const number = await issueMandate(db, {
    entryId: a.entryId,
    jobId,
    matricule: '0145',
    day: new Date().toISOString().slice(0, 10),
  });
  await storeSignedPdf(db, a.entryId, number, new TextEncoder().encode('%PDF-1.7 signed'), 'upload', {
    formerMatricule: a.formerMatricule,
    invoicingAddresses: a.invoicingAddresses,
  });
  await markSubmitted(db, a.entryId);
  const decision = {
    id: crypto.randomUUID(),
    entryId: a.entryId,
    jobId,
    approved: true,
    decidedAt: new Date().toISOString(),
  };
  await runEffect(db, decisionEffect(decision, { type: 'job-cancelled', message: 'cancelled' }));
}
