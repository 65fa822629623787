// The shapes of our JSON responses, as zod schemas: the OpenAPI document is generated from them (with the request
// schemas the routers validate with), and the API tests check every response they receive against it. Here the
// shapes of entries, jobs and workflows and those every area uses; the gov-fr app's in gov-fr-schemas.ts, a
// workspace's own resources in workspace-schemas.ts.
import { z } from 'zod';
import { WAITING_FOR } from '../platform/store/waiting-for';
import { PROBLEM_CODE_NAMES } from '../web/http/problem-codes';
import { STORED_JSON_LIMITS, jsonOverLimits, type JsonLimits } from '../web/http/bounded-json';
import { partyDocument } from '../domain/party';
import { PARTY_STATES } from '../contract/job';
import { timestamp, uuid } from '../web/http/schema-primitives';

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
    "what a job in WAIT waits for: signer — the signer to sign and submit the mandate; decision — the operator's decision on the submission; second-decision — another operator's, after a first approval (four eyes); " +
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
    'moved-out — the nightly reconciliation found another platform took its addresses over (its party.state_changed event names the platform and the day): off Peppol here',
    'ceased — the company ceased (the PPF ended its directory lines): off Peppol here',
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
    mandate_renewal: z
      .object({ changed: z.array(z.string()), workflow_id: uuid })
      .optional()
      .describe(
        'set when a registered party changed what its mandate says: run this workflow (the address update) to sign a new mandate; the one in force stays until it is approved',
      ),
  })
  .meta({ id: 'UpdatedEntry' });

export const entryPage = z
  .object({
    limit: z.number().int(),
    cursor: z.string().optional(),
    folder: z.string().optional(),
    state: partyState.optional(),
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

export const ping = z.object({ ping: z.literal('pong') });
export const live = z.object({ status: z.literal('ok') });
export const ready = z
  .object({ status: z.enum(['ok', 'unavailable']), checks: z.object({ database: z.string(), temporal: z.string() }) })
  .meta({ id: 'Readiness' });
