// A review queue of `count` pending submissions written straight into the store, spread over `workspaces`: what
// bench:review and the queue's browser test page, filter and search through, without running a registration each.
// Deterministic from the index: every kind, evidence, Annuaire finding and deadline appears in known shares.
import crypto from 'node:crypto';
import type { Queryable } from '../../platform/store/db';
import { insertPendingSubmissions } from '../../platform/store/pending-submissions-seed';
import { makeSiren, party } from './sample-parties';

export interface SeededSubmission {
  entryId: string;
  siren: string;
  name: string;
  workspaceId: string;
}

const NAMES = ['Boulangerie', 'Fromagerie', 'Menuiserie', 'Quincaillerie', 'Traiteur', 'Cordonnerie', 'Imprimerie'];
const EVIDENCE = ['in-app', 'digital-signature', 'visible-signature', 'scan'] as const;

/** The facts of the i-th seeded submission. */
export function seededFacts(i: number) {
  return {
    purpose: i % 10 === 0 ? 'takeover' : i % 7 === 0 ? 'renewal' : 'registration',
    round: i % 5 === 0 ? 2 : 1,
    evidence: EVIDENCE[i % 4]!,
    nameMatches: i % 5 !== 0,
    companyActive: i % 9 !== 0,
    /** One signer in three is not among the company's directors. */
    signerIsDirector: i % 3 !== 0,
    /** Its deadline, days after it was submitted: not in submission order (most-urgent-first differs). */
    deadlineDays: 30 - (i % 13),
  };
}

/** Seeds the queue; returns the submissions in the order seeded (oldest first). */
export async function seedReviewQueue(
  db: Queryable,
  o: { count: number; workspaces: { id: string }[] },
): Promise<SeededSubmission[]> {
  const subs = Array.from({ length: o.count }, (_, i) => ({
    entryId: crypto.randomUUID(),
    siren: makeSiren(10_000_000 + i),
    name: `${NAMES[i % NAMES.length]} N°${i} SARL`,
    workspaceId: o.workspaces[i % o.workspaces.length]!.id,
  }));
  const now = Date.now();
  const facts = subs.map((_, i) => seededFacts(i));
  // Ten minutes apart, the first the oldest.
  const at = subs.map((_, i) => new Date(now - (o.count - i) * 600_000));
  await insertPendingSubmissions(
    db,
    subs.map((sub, i) => {
      const f = facts[i]!;
      return {
        entryId: sub.entryId,
        workspaceId: sub.workspaceId,
        siren: sub.siren,
        party: party(sub.siren, { name: sub.name }),
        jobId: crypto.randomUUID(),
        mandateNumber: `${sub.siren}_0145_FIXTURE_${i}`,
        submittedAt: at[i]!,
        evidence: f.evidence,
        checks: {
          purpose: f.purpose,
          round: f.round,
          decideBy: new Date(at[i]!.getTime() + f.deadlineDays * 86_400_000),
          directory: {
            outcome: 'found',
            record: {
              siren: sub.siren,
              name: f.nameMatches ? sub.name.toUpperCase() : 'AUTRE NOM',
              status: f.companyActive ? 'active' : 'ceased',
            },
            other_platforms: f.purpose === 'takeover' ? ['0042'] : [],
          },
          nameMatches: f.nameMatches,
          companyActive: f.companyActive,
          signer: f.signerIsDirector
            ? { result: 'pass', director: { name: 'Élodie N GUESSAN DUPRE', role: 'Présidente' } }
            : {
                result: 'fail',
                code: 'not-listed',
                reason: 'not among the 2 natural-person director(s) the public register lists',
                listed: [
                  { name: 'Paul DURAND', role: 'Président' },
                  { name: 'Zoé ROUX', role: 'Directrice générale' },
                ],
              },
        },
      };
    }),
  );
  return subs;
}
