// Puts an entry in the state the directory and Peppol steps require: a signed, submitted and approved mandate.
import crypto from 'node:crypto';
import type { Queryable } from '../../platform/store/db';
import type { InvoicingAddresses } from '../../domain/party/invoicing-addresses';
import { markSubmitted, storeSignedPdf } from '../../platform/store/agreements';
import { issueMandate } from '../../platform/store/mandate-numbers';
import { claimDecision, recordDecision } from '../../platform/store/approval-decisions';

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
  const id = await recordDecision(db, { entryId: a.entryId, jobId, approved: true });
  await claimDecision(db, a.entryId, jobId, id);
}
