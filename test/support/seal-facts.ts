// What the seal tests sign with: the seal's signature info and the audit facts of one signed mandate.
import type { AuditFacts } from '../../domain/mandate-document/audit-page';

export const SEAL_INFO = {
  name: 'Test PA',
  reason: 'Mandat 552032534_0145_20261122_01',
  location: 'France',
  contact: '552032534',
};

export const auditFacts = (signedVia: AuditFacts['signedVia']): AuditFacts => ({
  mandateNumber: '552032534_0145_20261122_01',
  entryId: 'entry-1',
  documentSha256: 'a'.repeat(64),
  signer: { name: 'Élodie Martin', role: 'Présidente' },
  signedAt: '2026-11-22T10:00:00Z',
  signedVia,
  signedFrom: { ip: '203.0.113.7', userAgent: 'test' },
  identity: [{ view: 'page', sha256: 'b'.repeat(64) }],
  confirmedAt: '2026-11-22T10:05:00Z',
  confirmedFrom: { ip: '203.0.113.7', userAgent: 'test' },
});
