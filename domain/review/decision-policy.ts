// The decision policy: which submissions an approval alone does not settle. Its cases name facts of the checks
// recorded with each submission (submission-checks.ts); an approval of one of them waits for a second approval by
// another operator (four eyes), and a rejection by either ends it. The platform's policy is one JSON file:
// decision-policy.json beside this module by default, DECISION_POLICY_FILE to replace it. Off under AUTO_APPROVE.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { SubmissionChecks } from './submission-checks';

/** The cases a policy may name, each a fact of the checks. */
export const SECOND_APPROVAL_CASES = {
  /** The mandate takes over another platform's lines (named in it, or found in the Annuaire). */
  takeover: (c) => c.purpose === 'takeover',
  /** An uploaded mandate with no signature but a scan's: the number and signature checked by eye. */
  scan: (c) => c.evidence === 'scan',
  /** The declared name is not the Annuaire's. */
  'name-mismatch': (c) => c.nameMatches === false,
  /** The Annuaire does not show the company active: ceased, unknown to it, or it did not answer. */
  'not-active': (c) => c.companyActive !== true,
} satisfies Record<string, (c: PolicyFacts) => boolean>;

export type SecondApprovalCase = keyof typeof SECOND_APPROVAL_CASES;
/** The checks' facts a case reads (as the store keeps them). */
type PolicyFacts = { purpose: string; evidence: string } & Pick<SubmissionChecks, 'nameMatches' | 'companyActive'>;

const policySchema = z.strictObject({
  version: z.number().int().min(1),
  second_approval: z
    .array(z.enum(Object.keys(SECOND_APPROVAL_CASES) as [SecondApprovalCase, ...SecondApprovalCase[]]))
    .refine((cases) => new Set(cases).size === cases.length, 'a case must not repeat'),
});
export type DecisionPolicy = z.infer<typeof policySchema>;

export const DEFAULT_POLICY_FILE = fileURLToPath(new URL('./decision-policy.json', import.meta.url));

/** The policy in `file`; a file that is not one fails the start, naming what is wrong. */
export function loadDecisionPolicy(file = DEFAULT_POLICY_FILE): DecisionPolicy {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`decision policy ${file}: ${(err as Error).message}`);
  }
  const parsed = policySchema.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `decision policy ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** The first case of the policy that needs a second approval for these checks; none when one approval settles it. */
export function secondApprovalCase(policy: DecisionPolicy, checks: PolicyFacts): SecondApprovalCase | undefined {
  return policy.second_approval.find((name) => SECOND_APPROVAL_CASES[name](checks));
}
