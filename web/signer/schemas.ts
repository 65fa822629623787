// Over 300 lines for now: the gov-fr app's response shapes, each declared once beside the others it nests; the
// checks' shapes are in check-schemas.ts; the review detail's are the next to move (issue 47's note).
// The shapes of the gov-fr app's JSON responses: submissions and decisions, the operator's review, directory lookups,
// the wizard's state.
import { z } from 'zod';
import { RENEWED_FACTS } from '../../domain/party/renewal';
import { timestamp, uuid } from '../http/schema-primitives';
import { EVIDENCE_KINDS, SUBMISSION_PURPOSES } from '../../domain/review/submission-checks';
import { signatureEvidence, signerCheck } from './check-schemas';

export const submitted = z.object({ status: z.literal('submitted') }).meta({ id: 'Submitted' });
export const decision = z
  .object({
    id: uuid,
    decision: z.enum(['approved', 'rejected']),
    reason: z.string().optional(),
    decided_at: timestamp,
    awaiting: z
      .literal('second-approval')
      .optional()
      .describe('a first approval (four eyes): the submission waits for another operator to approve or reject'),
    policy_case: z
      .string()
      .optional()
      .describe("the decision policy's case that asks this submission for two approvals (takeover, scan, …)"),
    overturns: z
      .literal('automatic-approval')
      .optional()
      .describe("a rejection overturning the decision policy's automatic approval, within its window"),
  })
  .meta({ id: 'Decision' });
const directoryRecord = z
  .discriminatedUnion('outcome', [
    z.object({
      outcome: z.literal('found'),
      record: z.object({
        siren: z.string(),
        name: z.string(),
        status: z.enum(['active', 'ceased']),
        entity_type: z.string().optional(),
      }),
      other_platforms: z
        .array(z.string())
        .describe('matricules of the platforms other than ours (and 9998) whose lines are in force: a take-over'),
    }),
    z.object({
      outcome: z.enum(['not-found', 'unavailable', 'refused', 'no-siren', 'unchecked']),
      reason: z.string(),
    }),
  ])
  .describe("the PPF Annuaire's own record for the SIREN (unité légale), or why it cannot be shown");
const submissionChecks = z
  .object({
    purpose: z
      .enum(SUBMISSION_PURPOSES)
      .describe(
        "registration; renewal: a registered party's new mandate (address update, new name or signer); takeover",
      ),
    round: z.number().int().describe('1: a first submission; more: submitted again after a rejection'),
    evidence: z.enum(EVIDENCE_KINDS).describe('in-app, or what showed an uploaded mandate was signed (scan: by eye)'),
    decide_by: timestamp.describe('the approval deadline: past it, the registration fails for want of a decision'),
    directory: directoryRecord,
    name_matches: z
      .boolean()
      .nullable()
      .describe("the declared name is the Annuaire's (case, accents, punctuation aside)"),
    company_active: z.boolean().nullable().describe('the Annuaire shows the company active (false: ceased or unknown)'),
    signer_check: signerCheck,
    signature: signatureEvidence.nullable().describe('null: made before it was recorded'),
    checked_at: timestamp,
  })
  .describe('what was checked when the submission was made (null: made before checks were recorded)');
export const submissions = z
  .object({
    total: z.number().int().describe('how many submissions the filter matches, every page included'),
    list: z.array(
      z.object({
        entry_id: uuid,
        job_id: uuid,
        /** The integrator that brought the company. */
        workspace: z.object({ id: uuid, name: z.string() }),
        mandate_number: z.string(),
        submitted_at: timestamp,
        siren: z.string().nullable(),
        name: z.string().nullable(),
        // What showed an uploaded mandate was signed; 'scan': check the mandate number and the signature by eye. Null for in-app signatures.
        upload_evidence: z.enum(['digital-signature', 'visible-signature', 'scan']).nullable(),
        checks: submissionChecks.nullable(),
        first_approval: z
          .object({
            decided_by: z.object({ id: uuid, name: z.string() }).nullable(),
            decided_at: timestamp,
          })
          .nullable()
          .describe('four eyes: the first approval, waiting for another operator to approve or reject'),
        automatic: z
          .object({
            rule: z.string(),
            decided_at: timestamp,
            overturnable_until: timestamp.nullable(),
            runs_on_at: timestamp.nullable().describe('when the registration runs on (its directory step)'),
          })
          .nullable()
          .describe(
            "approved automatically by the decision policy's rule (listed with automatic=true): an operator may reject it until overturnable_until",
          ),
      }),
    ),
    next_cursor: z.string().optional(),
    workspaces: z
      .array(z.object({ id: uuid, name: z.string(), pending: z.number().int() }))
      .describe('the workspaces with submissions awaiting a decision, and how many each (whatever the filter)'),
  })
  .meta({ id: 'Submissions' });

const reviewDecision = z.object({
  decision: z.enum(['approved', 'rejected']),
  reason: z.string().optional(),
  decided_at: timestamp,
  decided_by: z
    .object({ id: uuid, name: z.string() })
    .nullable()
    .optional()
    .describe('the operator who decided; null: an automatic approval, or a decision made before operators'),
  id: uuid.optional(),
  stage: z
    .enum(['first-approval', 'final'])
    .optional()
    .describe('first-approval: four eyes, the first of two approvals; final: the decision on the submission'),
  policy_case: z
    .string()
    .nullable()
    .optional()
    .describe("the decision policy's case that asked for two approvals; null when one settled it"),
  automatic: z
    .object({
      rule: z.string(),
      version: z.number().int().nullable(),
      inputs: z.unknown().describe("the facts the rule read: each condition's value, and the checks"),
      overturnable_until: timestamp.nullable().describe('until then an operator may overturn it (reject it)'),
      runs_on_at: timestamp.nullable().describe('when the registration runs on (its directory step starts)'),
    })
    .optional()
    .describe("an automatic approval: the decision policy's rule that made it, the policy's version, its inputs"),
  overturns: uuid.optional().describe('the automatic approval this rejection overturned'),
});
const renewal = z
  .object({
    mandate_number: z.string().describe('the mandate in force, which this one replaces once approved'),
    new_addresses: z.array(z.string()).describe('the addresses this mandate entrusts and the one in force does not'),
    changed: z
      .array(
        z.object({
          fact: z.enum(RENEWED_FACTS),
          was: z
            .string()
            .nullable()
            .describe(
              'what the mandate in force stated (null for an identity document number, or when it stated none)',
            ),
        }),
      )
      .describe('what else this mandate states differently from the one in force: a legal name, an address, a signer'),
  })
  .describe("a renewal's new mandate: what it replaces, and what it adds or changes");

export const reviewSubmission = z
  .object({
    entry_id: uuid,
    job_id: uuid,
    mandate_number: z.string(),
    submitted_at: timestamp.nullable(),
    signed_via: z.enum(['drawn', 'typed', 'upload']).nullable(),
    mandate_signed: z.boolean(),
    awaiting_decision: z.boolean(),
    party: z.object({
      name: z.string().nullable(),
      siren: z.string().nullable(),
      vat: z.string().nullable(),
      address: z.string().nullable(),
    }),
    signer: z.object({
      given: z.string().nullable(),
      surname: z.string().nullable(),
      role: z.string().nullable(),
      id_number: z.string().nullable().describe('the identity document number declared: compare it with the images'),
    }),
    identity: z.array(
      z.object({
        view: z.enum(['front', 'back', 'page']),
        mime: z.string(),
        size: z.number().int(),
        uploaded_at: timestamp.describe('when this view was last uploaded'),
      }),
    ),
    decision: reviewDecision
      .nullable()
      .describe('the last decision on this registration (a first approval is not one)'),
    four_eyes: z
      .object({
        policy_case: z.string().describe("the decision policy's case that asks this submission for two approvals"),
        first_approval: reviewDecision
          .nullable()
          .describe('the first approval, once given: the second must come from another operator'),
      })
      .nullable()
      .describe('null: one approval settles this submission'),
    name_matches: z
      .boolean()
      .nullable()
      .describe(
        "the declared name is the Annuaire's record's (case, accents, punctuation, legal forms aside); null without one",
      ),
    signer_check: signerCheck.nullable().describe('null: submitted before checks were recorded'),
    signature: signatureEvidence.nullable().describe('null: submitted before it was recorded'),
    decisions: z
      .array(reviewDecision)
      .describe(
        "every decision on this registration's submissions, newest first (a rejection and its reason stay listed after a new submission)",
      ),
    directory: directoryRecord,
    replaces: renewal.optional(),
    bundle: z
      .object({
        id: uuid,
        campaign_id: uuid,
        companies: z.array(
          z.object({
            entry_id: uuid.nullable(),
            siren: z.string(),
            name: z.string().nullable(),
            state: z.string().nullable(),
            submitted_at: timestamp.nullable(),
            decision: z.enum(['approved', 'rejected']).nullable(),
          }),
        ),
      })
      .nullable()
      .describe(
        "the campaign's bundle this submission was signed in: one signer's companies, the identity document given once, each mandate signed and decided on its own; null when none",
      ),
  })
  .meta({ id: 'ReviewSubmission' });

const directoryEntry = z
  .object({
    id_instance: z.string(),
    siren: z.string(),
    siret: z.string(),
    routing_code: z.string(),
    platform_id: z.string(),
    identifier: z.string(),
    suffix: z.string(),
    start_date: z.string(),
    end_date: z.string(),
    effective_end_date: z.string(),
  })
  .meta({ id: 'DirectoryEntry' });
export const directoryLookup = z
  .object({
    siren: z.string().optional(),
    identifier: z.string().optional(),
    count: z.number().int(),
    results: z.array(directoryEntry),
  })
  .meta({ id: 'DirectoryLookup' });

export const wizardState = z
  .object({
    pa_name: z.string(),
    state: z.string().nullable(),
    mandate_number: z.string(),
    company: z.object({ name: z.string(), siren: z.string().nullable(), address: z.string().optional() }),
    signer: z.object({
      given: z.string().optional(),
      surname: z.string().optional(),
      role: z.string().optional(),
      id_number_hint: z.string().optional(),
    }),
    missing: z.array(z.enum(['given', 'surname', 'role', 'id_number'])),
    take_over: z.boolean(),
    invoicing_addresses: z
      .object({
        entrust: z.enum(['all', 'listed']),
        addresses: z.array(
          z.object({
            id: z.string(),
            kind: z.enum(['siren', 'siret', 'routing', 'suffix']),
            label: z.string().optional(),
          }),
        ),
      })
      .describe("what the mandate's part 4 entrusts: every address of the SIREN, or those listed"),
    replaces: renewal
      .nullable()
      .describe("an address update's new mandate: what it replaces and what it adds; null for a registration"),
    details_confirmed: z.boolean(),
    identity: z.object({ front: z.boolean(), back: z.boolean(), page: z.boolean() }),
    signed: z.enum(['drawn', 'typed', 'upload']).nullable(),
    submitted: z.boolean(),
    decision: z
      .object({ decision: z.enum(['approved', 'rejected']), reason: z.string().optional(), decided_at: timestamp })
      .nullable(),
  })
  .meta({ id: 'WizardState' });

export const bundleState = z
  .object({
    pa_name: z.string(),
    signer: wizardState.shape.signer.nullable().describe('null until a company’s mandate is issued'),
    missing: wizardState.shape.missing.describe('signer fields to complete, for every company still to submit'),
    details_confirmed: z.boolean().describe('the signer confirmed their details for every company still to submit'),
    identity: wizardState.shape.identity.describe('each face uploaded for every company still to submit'),
    companies: z.array(
      z.object({
        siren: z.string(),
        name: z.string().nullable(),
        state: z.string().nullable().describe('the party’s state; null until its entry is made'),
        link: z
          .string()
          .nullable()
          .describe('its own wizard, where its mandate is read, signed and submitted; null until issued, or once over'),
        mandate_number: z.string().nullable(),
        signed: wizardState.shape.signed,
        submitted: z.boolean(),
        decision: z.enum(['approved', 'rejected']).nullable(),
      }),
    ),
  })
  .meta({ id: 'BundleState' });
