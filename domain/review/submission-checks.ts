// The checks of a submission: made once, when the signer confirms it, and stored with it (platform/store/
// submission-checks.ts). The operators' queue shows them on each card, filters and orders on them; nothing is fetched
// per card. What the submission is for, its round, the evidence of the signature, the Annuaire's record then
// (directory-record.ts) and the day the approval wait ends.
import type { Logger } from 'pino';
import type { MandateRow } from '../../platform/store/mandates';
import { directoryRecord, recordMatches, type CompanyLookup, type DirectoryRecord } from './directory-record';
import {
  checkDirectors,
  isSamePerson,
  type DirectorLookup,
  type NamedPerson,
  type SignerCheck,
} from './director-check';
import type { CertificateFacts } from './signing-certificate';

/** A registration, a registered party's new mandate (an address update, a new name or signer), a take-over. */
export const SUBMISSION_PURPOSES = ['registration', 'renewal', 'takeover'] as const;
export type SubmissionPurpose = (typeof SUBMISSION_PURPOSES)[number];

/** Signed in the wizard or by API (`in-app`), or uploaded: what showed it was signed (domain/inspection/). */
export const EVIDENCE_KINDS = ['in-app', 'digital-signature', 'visible-signature', 'scan'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export interface SubmissionChecks {
  purpose: SubmissionPurpose;
  /** 1 for a first submission; one more after each rejection. */
  round: number;
  evidence: EvidenceKind;
  directory: DirectoryRecord;
  /** Whether the declared name is the Annuaire's; null when the Annuaire gave no record. */
  nameMatches: boolean | null;
  /** Whether the Annuaire shows the company active; null when it could not say. */
  companyActive: boolean | null;
  /** Whether the declared signer is among the company's directors (the public register's). */
  signer: SignerCheck;
  /** How it was signed, and for a digital signature whom its certificate names. */
  signature: SignatureEvidence;
}

/**
 * The evidence of the signature in detail: in the app, drawn or typed; a digital signature, with whom its certificate
 * names, whether the platform trusts it, whether it names the declared signer and whether that person is a director;
 * a visible signature added to an uploaded mandate; a scan.
 */
export type SignatureEvidence =
  | { kind: 'in-app'; via: 'drawn' | 'typed' }
  | { kind: 'digital-signature'; certificate: CertificateFacts | null; names_signer: boolean; director: SignerCheck }
  | { kind: 'visible-signature' }
  | { kind: 'scan' };

/** The person a certificate names, as the director check compares them. */
function certificatePerson(c: CertificateFacts): NamedPerson | undefined {
  if (c.names.given && c.names.surname) return { given: c.names.given, surname: c.names.surname, strict: true };
  return c.names.common ? { whole: c.names.common, strict: true } : undefined;
}

/** Whether the certificate names the declared signer (a common name split at each word, as the director check does). */
function namesSigner(c: CertificateFacts, signer: { given: string; surname: string }): boolean {
  const p = certificatePerson(c);
  if (!p) return false;
  if (!('whole' in p)) return isSamePerson(p, { surname: signer.surname, givenNames: signer.given }, true);
  const words = p.whole.trim().split(/\s+/);
  return words
    .slice(1)
    .some((_, i) =>
      isSamePerson(
        { given: words.slice(0, i + 1).join(' '), surname: words.slice(i + 1).join(' ') },
        { surname: signer.surname, givenNames: signer.given },
        true,
      ),
    );
}

export const evidenceOf = (m: Pick<MandateRow, 'signed_via' | 'upload_evidence'>): EvidenceKind =>
  m.signed_via === 'upload' ? (m.upload_evidence ?? 'scan') : 'in-app';

/**
 * The checks of the submission about to be recorded. `registered`: the party is (a renewal); `rejections`: how many
 * of this registration's submissions were rejected before.
 */
export async function checkSubmission(
  deps: { annuaire: CompanyLookup; register: DirectorLookup; log: Logger; us: string },
  s: {
    siren: string | null;
    declaredName: string | null | undefined;
    /** The mandate's signer, as declared. */
    signer: { given?: string; surname?: string } | undefined;
    mandate: Pick<MandateRow, 'signed_via' | 'upload_evidence' | 'signed_former_matricule'>;
    /** A digital signature's certificate, as the upload found it. */
    certificate?: CertificateFacts;
    registered: boolean;
    rejections: number;
  },
): Promise<SubmissionChecks> {
  const evidence = evidenceOf(s.mandate);
  const signer = { given: s.signer?.given?.trim() ?? '', surname: s.signer?.surname?.trim() ?? '' };
  const declared = signer.given && signer.surname ? [signer] : [];
  const certified = evidence === 'digital-signature' && s.certificate ? certificatePerson(s.certificate) : undefined;
  const [directory, checked] = await Promise.all([
    directoryRecord(deps.annuaire, deps.log, s.siren, deps.us),
    checkDirectors(deps, s.siren, [...declared, ...(certified ? [certified] : [])]),
  ]);
  const heldElsewhere = directory.outcome === 'found' && directory.other_platforms.length > 0;
  const signerCheck: SignerCheck = declared.length
    ? checked[0]!
    : { result: 'unavailable', code: 'no-name', reason: 'the signer has no given name and surname' };
  const certificateCheck: SignerCheck = certified
    ? checked[declared.length]!
    : { result: 'unavailable', code: 'no-name', reason: 'the certificate names no person' };
  return {
    purpose:
      s.mandate.signed_former_matricule || heldElsewhere ? 'takeover' : s.registered ? 'renewal' : 'registration',
    round: s.rejections + 1,
    evidence,
    directory,
    ...recordMatches(directory, s.declaredName),
    signer: signerCheck,
    signature:
      evidence === 'in-app'
        ? { kind: 'in-app', via: s.mandate.signed_via === 'drawn' ? 'drawn' : 'typed' }
        : evidence === 'digital-signature'
          ? {
              kind: 'digital-signature',
              certificate: s.certificate ?? null,
              names_signer: !!s.certificate && declared.length > 0 && namesSigner(s.certificate, signer),
              director: certificateCheck,
            }
          : { kind: evidence },
  };
}
