// The shapes of the gov-fr app's JSON responses: submissions and decisions, the operator's review, directory lookups,
// the wizard's state.
import { z } from 'zod';
import { RENEWED_FACTS } from '../../domain/party/renewal';
import { timestamp, uuid } from '../http/schema-primitives';

export const submitted = z.object({ status: z.literal('submitted') }).meta({ id: 'Submitted' });
export const decision = z
  .object({
    id: uuid,
    decision: z.enum(['approved', 'rejected']),
    reason: z.string().optional(),
    decided_at: timestamp,
  })
  .meta({ id: 'Decision' });
export const submissions = z
  .object({
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
      }),
    ),
  })
  .meta({ id: 'Submissions' });

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
    }),
    z.object({ outcome: z.enum(['not-found', 'unavailable', 'refused', 'no-siren']), reason: z.string() }),
  ])
  .describe("the PPF Annuaire's own record for the SIREN (unité légale), or why it cannot be shown");
const reviewDecision = z.object({
  decision: z.enum(['approved', 'rejected']),
  reason: z.string().optional(),
  decided_at: timestamp,
  decided_by: z
    .object({ id: uuid, name: z.string() })
    .nullable()
    .optional()
    .describe('the operator who decided; null: an automatic approval, or a decision made before operators'),
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
    decision: reviewDecision.nullable().describe('the last decision on this registration'),
    decisions: z
      .array(reviewDecision)
      .describe(
        "every decision on this registration's submissions, newest first (a rejection and its reason stay listed after a new submission)",
      ),
    directory: directoryRecord,
    replaces: renewal.optional(),
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
