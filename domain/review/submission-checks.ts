// The checks of a submission: made once, when the signer confirms it, and stored with it (platform/store/
// submission-checks.ts). The operators' queue shows them on each card, filters and orders on them; nothing is fetched
// per card. What the submission is for, its round, the evidence of the signature, the Annuaire's record then
// (directory-record.ts) and the day the approval wait ends.
import type { Logger } from 'pino';
import type { MandateRow } from '../../platform/store/mandates';
import { directoryRecord, recordMatches, type CompanyLookup, type DirectoryRecord } from './directory-record';

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
}

export const evidenceOf = (m: Pick<MandateRow, 'signed_via' | 'upload_evidence'>): EvidenceKind =>
  m.signed_via === 'upload' ? (m.upload_evidence ?? 'scan') : 'in-app';

/**
 * The checks of the submission about to be recorded. `registered`: the party is (a renewal); `rejections`: how many
 * of this registration's submissions were rejected before.
 */
export async function checkSubmission(
  deps: { annuaire: CompanyLookup; log: Logger; us: string },
  s: {
    siren: string | null;
    declaredName: string | null | undefined;
    mandate: Pick<MandateRow, 'signed_via' | 'upload_evidence' | 'signed_former_matricule'>;
    registered: boolean;
    rejections: number;
  },
): Promise<SubmissionChecks> {
  const directory = await directoryRecord(deps.annuaire, deps.log, s.siren, deps.us);
  const heldElsewhere = directory.outcome === 'found' && directory.other_platforms.length > 0;
  return {
    purpose:
      s.mandate.signed_former_matricule || heldElsewhere ? 'takeover' : s.registered ? 'renewal' : 'registration',
    round: s.rejections + 1,
    evidence: evidenceOf(s.mandate),
    directory,
    ...recordMatches(directory, s.declaredName),
  };
}
