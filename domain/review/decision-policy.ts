// The decision policy: which submissions are approved without a person, and which an approval alone does not
// settle. Both read facts of the checks recorded with each submission (submission-checks.ts). A rule of
// `auto_approve` approves automatically when all its conditions hold, and only if one of them binds the signer's
// identity (a name anyone can type binds no one: the loader refuses such a rule); a submission a `second_approval`
// case names is never approved automatically. Every other submission goes to the operators; an approval of one a case
// names waits for a second approval by another operator (four eyes), and a rejection by either ends it. The
// platform's policy is one JSON file: decision-policy.json beside this module by default (no automatic approval),
// DECISION_POLICY_FILE to replace it. Off under AUTO_APPROVE.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { SubmissionChecks } from './submission-checks';
import { durationMs } from '../../contract/duration';

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
/** The checks' facts a case or a condition reads (as the store keeps them). */
type PolicyFacts = { purpose: string; evidence: string; round?: number } & Pick<
  SubmissionChecks,
  'nameMatches' | 'companyActive'
> & { signer?: { result: string }; signature?: ({ kind: string } & Record<string, unknown>) | null };

/**
 * The conditions an automatic approval may rest on. `binds`: the condition ties the signature to a person by more
 * than a name — a certificate from a CA the platform trusts (SIGNATURE_TRUST_ANCHORS_FILE) naming the declared
 * signer, whom the public register lists as a director.
 */
export const AUTO_APPROVAL_CONDITIONS = {
  'certificate-names-director': {
    binds: true,
    holds: (c: PolicyFacts) => {
      const s = c.signature;
      if (s?.kind !== 'digital-signature') return false;
      const cert = s.certificate as { trusted?: boolean } | null;
      return (
        cert?.trusted === true && s.names_signer === true && (s.director as { result?: string })?.result === 'pass'
      );
    },
  },
  'signer-is-director': { binds: false, holds: (c: PolicyFacts) => c.signer?.result === 'pass' },
  'name-matches': { binds: false, holds: (c: PolicyFacts) => c.nameMatches === true },
  'company-active': { binds: false, holds: (c: PolicyFacts) => c.companyActive === true },
  registration: { binds: false, holds: (c: PolicyFacts) => c.purpose === 'registration' },
  renewal: { binds: false, holds: (c: PolicyFacts) => c.purpose === 'renewal' },
} satisfies Record<string, { binds: boolean; holds: (c: PolicyFacts) => boolean }>;

export type AutoApprovalCondition = keyof typeof AUTO_APPROVAL_CONDITIONS;
const CONDITIONS = Object.keys(AUTO_APPROVAL_CONDITIONS) as [AutoApprovalCondition, ...AutoApprovalCondition[]];
const BINDING = CONDITIONS.filter((c) => AUTO_APPROVAL_CONDITIONS[c].binds);

const unique = (list: string[]) => new Set(list).size === list.length;

const ruleSchema = z
  .strictObject({
    rule: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a rule name: lower-case letters, digits and hyphens'),
    when: z.array(z.enum(CONDITIONS)).min(1).refine(unique, 'a condition must not repeat'),
  })
  .refine((r) => r.when.some((c) => AUTO_APPROVAL_CONDITIONS[c].binds), {
    message: `rests on names alone: an automatic approval needs a condition binding the signer's identity (${BINDING.join(', ')})`,
  });

const policySchema = z.strictObject({
  version: z.number().int().min(1),
  second_approval: z
    .array(z.enum(Object.keys(SECOND_APPROVAL_CASES) as [SecondApprovalCase, ...SecondApprovalCase[]]))
    .refine(unique, 'a case must not repeat'),
  /**
   * How long an automatic approval waits before the registration runs on (its directory step starts): operators may
   * overturn it meanwhile. A duration: 30m, 2h, 1d; 0s for none.
   */
  overturn_window: z
    .string()
    .regex(/^\d+(ms|s|m|h|d)$/, 'a duration such as 2h, 30m or 0s')
    .default('1h'),
  /** Tried in order; the first whose conditions all hold approves. None: every submission to a person. */
  auto_approve: z
    .array(ruleSchema)
    .default([])
    .refine((rules) => unique(rules.map((r) => r.rule)), 'a rule name must not repeat'),
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

/** What an automatic approval records: the rule, the policy's version, and the facts it read. */
export interface AutomaticApproval {
  rule: string;
  version: number;
  inputs: { conditions: Record<string, boolean>; checks: PolicyFacts };
  /** The policy's overturn window, in milliseconds. */
  windowMs: number;
}

/**
 * The rule approving this submission automatically, if any: none after a rejection (a person decides again), none
 * when a case asks for a second approval (a person, twice), else the first rule whose conditions all hold.
 */
export function automaticApproval(policy: DecisionPolicy, checks: PolicyFacts): AutomaticApproval | undefined {
  // A person rejected an earlier submission (or overturned its automatic approval): a person decides the next.
  if ((checks.round ?? 1) > 1) return undefined;
  if (secondApprovalCase(policy, checks)) return undefined;
  for (const r of policy.auto_approve) {
    const conditions = Object.fromEntries(r.when.map((c) => [c, AUTO_APPROVAL_CONDITIONS[c].holds(checks)]));
    if (Object.values(conditions).every(Boolean))
      return {
        rule: r.rule,
        version: policy.version,
        inputs: { conditions, checks },
        windowMs: durationMs(policy.overturn_window),
      };
  }
  return undefined;
}

/** The first case of the policy that needs a second approval for these checks; none when one approval settles it. */
export function secondApprovalCase(policy: DecisionPolicy, checks: PolicyFacts): SecondApprovalCase | undefined {
  return policy.second_approval.find((name) => SECOND_APPROVAL_CASES[name](checks));
}

/**
 * What a policy that loads may still get wrong, said at start: an automatic rule that would approve a company the
 * Annuaire does not show active, or under another name, when no four-eyes case sends those to a person; no window to
 * overturn an automatic approval.
 */
export function policyWarnings(p: DecisionPolicy): string[] {
  const out: string[] = [];
  for (const r of p.auto_approve) {
    if (!r.when.includes('company-active') && !p.second_approval.includes('not-active'))
      out.push(`rule ${r.rule} may approve a company the Annuaire does not show active: add company-active`);
    if (!r.when.includes('name-matches') && !p.second_approval.includes('name-mismatch'))
      out.push(
        `rule ${r.rule} may approve a company declared under another name than the Annuaire's: add name-matches`,
      );
  }
  if (p.auto_approve.length && durationMs(p.overturn_window) === 0)
    out.push('overturn_window is 0s: no operator can overturn an automatic approval');
  return out;
}
