// Submissions awaiting a decision written in bulk, each with its entry, its submitted mandate and its checks: the
// review queue's fixture (bin/stack/review-queue-fixture.ts: bench:review and the queue's browser test), not a path
// of the service. One statement per table, however many.
import type { Queryable } from './db';

export interface PendingSubmissionSeed {
  entryId: string;
  workspaceId: string;
  siren: string;
  /** The entry's party document. */
  party: unknown;
  jobId: string;
  mandateNumber: string;
  submittedAt: Date;
  evidence: 'in-app' | 'digital-signature' | 'visible-signature' | 'scan';
  checks: {
    purpose: string;
    round: number;
    decideBy: Date;
    directory: unknown;
    nameMatches: boolean | null;
    companyActive: boolean | null;
    /** The director check (domain/review/director-check.ts SignerCheck). */
    signer: { result: 'pass' | 'fail' | 'unavailable' } & Record<string, unknown>;
  };
}

export async function insertPendingSubmissions(db: Queryable, seeds: PendingSubmissionSeed[]): Promise<void> {
  const col = <T>(f: (s: PendingSubmissionSeed) => T) => seeds.map(f);
  await db.query(
    `INSERT INTO entries (id, workspace_id, doc_schema, data, siren, state)
     SELECT id, ws, 'https://gobl.org/draft-0/org/party', data, siren, 'submitted'
     FROM unnest($1::uuid[], $2::uuid[], $3::jsonb[], $4::text[]) AS t(id, ws, data, siren)`,
    [col((s) => s.entryId), col((s) => s.workspaceId), col((s) => JSON.stringify(s.party)), col((s) => s.siren)],
  );
  await db.query(
    `INSERT INTO mandates (entry_id, job_id, mandate_number, issued_on, signed_via, signed_at, submitted_at, upload_evidence)
     SELECT id, job, num, submitted::date, CASE WHEN evidence = 'in-app' THEN 'typed' ELSE 'upload' END, submitted,
       submitted, NULLIF(evidence, 'in-app')
     FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[], $5::text[]) AS t(id, job, num, submitted, evidence)`,
    [
      col((s) => s.entryId),
      col((s) => s.jobId),
      col((s) => s.mandateNumber),
      col((s) => s.submittedAt),
      col((s) => s.evidence),
    ],
  );
  await db.query(
    `INSERT INTO submission_checks (entry_id, job_id, mandate_number, purpose, round, evidence, decide_by, directory,
       name_matches, company_active, signer_check)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::int[], $6::text[], $7::timestamptz[],
       $8::jsonb[], $9::boolean[], $10::boolean[], $11::jsonb[])`,
    [
      col((s) => s.entryId),
      col((s) => s.jobId),
      col((s) => s.mandateNumber),
      col((s) => s.checks.purpose),
      col((s) => s.checks.round),
      col((s) => s.evidence),
      col((s) => s.checks.decideBy),
      col((s) => JSON.stringify(s.checks.directory)),
      col((s) => s.checks.nameMatches),
      col((s) => s.checks.companyActive),
      col((s) => JSON.stringify(s.checks.signer)),
    ],
  );
}
