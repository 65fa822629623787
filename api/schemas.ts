// Long file: every response shape of the contract in one file; issue 43 moves each beside its route.
// The shapes of our JSON responses, as zod schemas: the OpenAPI document is generated from them (with the request
// schemas the routers validate with), and the API tests check every response they receive against it.
import { z } from 'zod';
import { WAITING_FOR } from '../platform/store/waiting-for';
import { PROBLEM_CODE_NAMES } from '../web/http/problem-codes';
import { STORED_JSON_LIMITS, jsonOverLimits, type JsonLimits } from '../web/http/bounded-json';
import { partyDocument } from '../domain/party';
import { PARTY_STATES } from '../contract/job';

const timestamp = z.iso.datetime({ offset: true });
const uuid = z.uuid();

export const problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    code: z
      .enum(PROBLEM_CODE_NAMES)
      .describe(
        'why, stable for clients to act on or translate: each code and its meaning are listed with the operations that answer it',
      ),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

const fault = z.object({ provider: z.string().optional(), code: z.string().optional(), message: z.string() }).loose();

export const meta = z
  .object({
    id: z.string(),
    entry_id: uuid,
    src: z.string(),
    key: z.string(),
    ref: z.string().optional(),
    value: z.unknown().optional(),
    link_url: z.string().optional(),
    link_scope: z.string().optional(),
    indexed: z.boolean(),
    shared: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Meta' });

/** A meta value's own limits, under the body's (web/http/bounded-json.ts). */
export const META_VALUE_LIMITS: JsonLimits = STORED_JSON_LIMITS;

/** A meta value as a caller sets it: any JSON within META_VALUE_LIMITS (400 naming them). */
export const metaValueInput = z
  .unknown()
  .superRefine((value, ctx) => {
    const over = jsonOverLimits(value, 'a meta value', META_VALUE_LIMITS);
    if (over) ctx.addIssue({ code: 'custom', message: over });
  })
  .describe(
    `any JSON: at most ${META_VALUE_LIMITS.values.toLocaleString('en')} values and keys (each object, array, string, number, boolean, null and object key counts one) ` +
      `and ${META_VALUE_LIMITS.bytes.toLocaleString('en')} bytes written as compact JSON (UTF-8); a larger value is refused, 400 naming the limit`,
  );

const waitingFor = z
  .enum(WAITING_FOR)
  .describe(
    "what a job in WAIT waits for: signer — the signer to sign and submit the mandate; decision — the operator's decision on the submission; " +
      'resubmission — a new submission, after the operator rejected one; effective-date — the day its changes take effect (effective_on): ' +
      'a registration whose directory lines start later publishes on Peppol then, an unregistration with leave_on starts then',
  );
/** The party's state, as its registration and unregistration set it (DOMAIN.md §2). */
export const partyState = z.enum(PARTY_STATES).meta({
  id: 'PartyState',
  description: [
    'processing — a registration issued the mandate and waits for the signer, or for a new submission after a rejection (see waiting_for)',
    'submitted — the signer submitted the signed mandate: the operator decides',
    'completed — approved: being registered in the PPF Annuaire and on Peppol',
    'registered — in the PPF Annuaire with this platform, and on Peppol: it receives its invoices here',
    "error — a step failed: the job's faults say why; correct and start a job again",
    'void — unregistered: off Peppol, its directory line ended',
    'cancelled — its registration was cancelled before the directory step; a new one can start',
  ].join('; '),
});

export const jobStatus = z.enum(['QUEUED', 'RUN', 'WAIT', 'OK', 'ERR', 'CANCEL']).meta({
  id: 'JobStatus',
  description: [
    'QUEUED — recorded; its workflow starts as soon as Temporal is reachable',
    'RUN — a step is running',
    'WAIT — waiting at the approval step, or for a day (see waiting_for)',
    'OK — ended, every step done',
    'ERR — a step failed and the rescue ran: faults say why',
    'CANCEL — cancelled through the API: faults carry the reason',
  ].join('; '),
});

const effectiveOn = z.iso
  .date()
  .optional()
  .describe('with waiting_for effective-date: the day (YYYY-MM-DD, UTC) the job waits for, on a durable timer');
const jobRef = z
  .object({
    id: uuid,
    workflow_id: uuid,
    status: jobStatus,
    waiting_for: waitingFor.optional(),
    effective_on: effectiveOn,
  })
  .meta({ id: 'JobRef' });

export const entry = z
  .object({
    id: uuid,
    key: z.string().optional(),
    folder: z.string().optional(),
    doc_schema: z.string(),
    state: partyState.optional(),
    faults: z.array(fault),
    waiting_for: waitingFor.optional(),
    effective_on: effectiveOn,
    current_job: jobRef.optional().describe('the job running on the entry, if any'),
    last_job: jobRef.optional().describe('the last job of the entry that ended'),
    meta: z.array(meta),
    data: partyDocument
      .optional()
      .describe(
        'the party (absent from lists); a draft kept with allow_invalid may break the rules, its faults say how',
      ),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Entry' });

export const updatedEntry = entry
  .extend({
    mandate_number: z
      .string()
      .optional()
      .describe('set when the change issued the mandate again: the number the signer must now sign'),
  })
  .meta({ id: 'UpdatedEntry' });

export const entryPage = z
  .object({
    limit: z.number().int(),
    cursor: z.string().optional(),
    folder: z.string().optional(),
    list: z.array(entry),
    next_cursor: z.string().optional(),
  })
  .meta({ id: 'EntryPage' });

const step = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: z.string(),
    action: z.string().meta({ description: "the provider, under the public API's name" }),
    summary: z.string().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

export const workflow = z
  .object({
    id: uuid,
    name: z.string(),
    description: z.string().optional(),
    schema: z.string(),
    steps: z.array(step),
    rescue: z.array(step),
    version: z.string(),
    hash: z.string(),
    builtin: z.literal(true).optional(),
    created_at: timestamp.optional(),
    updated_at: timestamp.optional(),
  })
  .meta({ id: 'Workflow' });

export const workflowList = z
  .object({ limit: z.number().int(), list: z.array(workflow) })
  .loose()
  .meta({ id: 'WorkflowList' });

export const job = z
  .object({
    id: uuid,
    key: z.string().optional(),
    workflow_id: uuid,
    silo_entry_id: uuid,
    status: jobStatus,
    waiting_for: waitingFor.optional(),
    effective_on: effectiveOn,
    args: z.record(z.string(), z.string()),
    tags: z.array(z.string()),
    faults: z.array(fault),
    intents: z.array(
      z.object({
        step_id: z.string(),
        name: z.string(),
        provider: z.string(),
        completed: z.boolean(),
        events: z.array(
          z.object({
            index: z.number().int(),
            status: z
              .enum(['RUN', 'WAIT', 'OK', 'KO'])
              .describe(
                'RUN — the step started; WAIT — the approval wait took an event (a submission); OK — the step ended well; KO — it failed, or was cancelled (code cancelled)',
              ),
            at: timestamp,
            code: z
              .string()
              .optional()
              .describe("why: a fault code, or the approval wait's event (submitted, approved, rejected, cancelled)"),
            message: z.string().optional(),
          }),
        ),
        created_at: timestamp,
        updated_at: timestamp,
      }),
    ),
    created_at: timestamp,
    updated_at: timestamp,
    completed_at: timestamp.optional(),
  })
  .meta({ id: 'Job' });

export const jobPage = z
  .object({
    limit: z.number().int(),
    cursor: z.string().optional(),
    created_at: z.string().optional(),
    list: z.array(job),
    next_cursor: z.string().optional(),
  })
  .meta({ id: 'JobPage' });

export const apiKey = z
  .object({
    id: uuid,
    name: z.string(),
    prefix: z.string(),
    scopes: z.array(z.string()),
    created_at: timestamp,
    revoked_at: timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });
export const apiKeyList = z.object({ list: z.array(apiKey) }).meta({ id: 'ApiKeyList' });
export const createdApiKey = apiKey
  .extend({ api_key: z.string().describe('the secret: shown this once') })
  .meta({ id: 'CreatedApiKey' });

export const ping = z.object({ ping: z.literal('pong') });
export const live = z.object({ status: z.literal('ok') });
export const ready = z
  .object({ status: z.enum(['ok', 'unavailable']), checks: z.object({ database: z.string(), temporal: z.string() }) })
  .meta({ id: 'Readiness' });

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
});
const renewal = z
  .object({
    mandate_number: z.string().describe('the mandate in force, which this one replaces once approved'),
    new_addresses: z.array(z.string()).describe('the addresses this mandate entrusts and the one in force does not'),
  })
  .describe("an address update's new mandate: what it replaces and what it adds");

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

export const subscription = z
  .object({
    id: uuid,
    url: z.string(),
    kinds: z.array(z.string()),
    description: z.string().optional(),
    created_at: timestamp,
    disabled_at: timestamp.nullable(),
  })
  .meta({ id: 'WebhookSubscription' });
export const createdSubscription = subscription
  .extend({ secret: z.string().describe('whsec_…: shown this once') })
  .meta({ id: 'CreatedWebhookSubscription' });
export const subscriptionList = z.object({ list: z.array(subscription) }).meta({ id: 'WebhookSubscriptionList' });
export const deliveryList = z
  .object({
    list: z.array(
      z.object({
        id: uuid,
        event_id: uuid,
        kind: z.string(),
        status: z.enum(['pending', 'delivered', 'failed', 'cancelled']),
        attempts: z.array(
          z.object({
            attempt: z.number().int(),
            at: timestamp,
            status_code: z.number().int().optional(),
            error: z.string().optional(),
            duration_ms: z.number().int(),
          }),
        ),
        created_at: timestamp,
        delivered_at: timestamp.nullable(),
      }),
    ),
  })
  .meta({ id: 'WebhookDeliveryLog' });
export const eventList = z
  .object({
    limit: z.number().int(),
    cursor: z.string().optional(),
    list: z.array(
      z.object({
        id: uuid,
        kind: z.string(),
        entry_id: uuid.nullable(),
        job_id: uuid.nullable(),
        data: z.record(z.string(), z.unknown()),
        at: timestamp,
      }),
    ),
    next_cursor: z.string().optional().describe('the next page: pass it as cursor; absent on the last page'),
  })
  .meta({ id: 'EventList' });

export const credential = z
  .object({
    name: z.string(),
    kind: z.enum(['oauth-token', 'api-key']),
    details: z.record(z.string(), z.unknown()),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Credential', description: 'a stored credential: its secret is never returned' });
export const credentialList = z.object({ list: z.array(credential) }).meta({ id: 'CredentialList' });
