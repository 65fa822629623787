// Long file: the one list the OpenAPI document is generated from; issue 43 declares each route once, in its router.
// Every operation of the API, with the zod schemas its router validates requests with and the schemas of its
// responses: the OpenAPI document is generated from this list, and a test checks that it names every route the
// app serves. Paths carry their service and version (seed §9), except those whose address is set by others.
import { z } from 'zod';
import { keyBody, keyParam as keyIdParam } from './admin-v1';
import { credentialBody, credentialListParams, credentialParams } from './credentials';
import { eventsQuery, pageQuery, subscriptionBody, subscriptionParam } from './events-v1';
import { identifierParam, sirenParam } from './gov-fr-directory-v1';
import { entryParam, langQuery, viewParam } from './gov-fr-v1';
import { agreementBody, decisionBody, identityBody, signBody } from '../domain/submission/inputs';
import { reviewEntryParam } from './review-v1';
import { migrationKeyIssued, migrationStatus, participantParams } from './peppol-v1';
import * as R from './schemas';
import { partyDocument } from '../domain/party';
import {
  entryBody,
  idParam,
  keyParam,
  listQuery,
  metaBody,
  metaParams,
  metaRefParams,
  metaRefQuery,
} from './entries-v1';
import { JSON_PATCH, MERGE_PATCH, jsonPatchBody, mergePatchBody, updateBody } from './entry-update';
import { cancelJobBody, createJobQuery, jobBody, listJobsQuery, listWorkflowsQuery } from './jobs-v1';
import { workflowInput } from '../domain/jobs/definition-schema';
import { detailsBody, langQuery as wizardLangQuery } from '../web/wizard/router';

export type Scope = 'entries:rw' | 'jobs:rw' | 'approvals' | 'admin';

export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express-style path (`/silo/v1/entries/:id`). */
  path: string;
  summary: string;
  /** The scope a key needs; none for public operations. */
  scope?: Scope;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body in other media types the operation accepts as well (its `body` is application/json). */
  otherBodies?: Record<string, z.ZodType>;
  /** Success responses: a JSON schema, a media type for binary bodies, or null for no body. */
  responses: Record<number, z.ZodType | { mediaType: string } | null>;
}

const pdf = { mediaType: 'application/pdf' };
// The router reads `data` as any object and checks it as a French party after: the reference shows that party.
const entryInput = entryBody.extend({ data: partyDocument });
const wizardRef = z.object({ ref: z.string().describe("the wizard link's credential (43 base64url characters)") });
const withRef = (p?: z.ZodObject) => (p ? wizardRef.extend(p.shape) : wizardRef);
const smpParticipant = z.object({
  participant: z.string().describe('iso6523-actorid-upis::0225:<SIREN>, percent-encoded'),
});

export const OPERATIONS: Operation[] = [
  // utils/v1
  { method: 'get', path: '/utils/v1/ping', summary: 'Ping', responses: { 200: R.ping } },
  { method: 'get', path: '/utils/v1/health/live', summary: 'Liveness', responses: { 200: R.live } },
  {
    method: 'get',
    path: '/utils/v1/health/ready',
    summary: 'Readiness: database and Temporal reachable',
    responses: { 200: R.ready, 503: R.ready },
  },

  // silo/v1
  {
    method: 'post',
    path: '/silo/v1/entries',
    summary: 'Create an entry (a GOBL party)',
    scope: 'entries:rw',
    body: entryInput,
    responses: { 200: R.entry },
  },
  {
    method: 'put',
    path: '/silo/v1/entries/:id',
    summary: 'Create an entry with a client-chosen id',
    scope: 'entries:rw',
    params: idParam,
    body: entryInput,
    responses: { 200: R.entry },
  },
  {
    method: 'patch',
    path: '/silo/v1/entries/:id',
    summary: "Correct an entry's party: a whole document, a merge patch or a JSON patch",
    scope: 'entries:rw',
    params: idParam,
    body: updateBody,
    otherBodies: { [MERGE_PATCH]: mergePatchBody, [JSON_PATCH]: jsonPatchBody },
    responses: { 200: R.updatedEntry },
  },
  {
    method: 'get',
    path: '/silo/v1/entries',
    summary: 'List entries, newest first',
    scope: 'entries:rw',
    query: listQuery,
    responses: { 200: R.entryPage },
  },
  {
    method: 'get',
    path: '/silo/v1/entries/key/:key',
    summary: 'Fetch an entry by its key',
    scope: 'entries:rw',
    params: keyParam,
    responses: { 200: R.entry },
  },
  {
    method: 'get',
    path: '/silo/v1/entries/:id',
    summary: 'Fetch an entry',
    scope: 'entries:rw',
    params: idParam,
    responses: { 200: R.entry },
  },
  {
    method: 'get',
    path: '/silo/v1/entries/meta/:key/:ref',
    summary: "Find a meta row by its key and ref, with its entry's id",
    scope: 'entries:rw',
    params: metaRefParams,
    query: metaRefQuery,
    responses: { 200: R.meta },
  },
  {
    method: 'put',
    path: '/silo/v1/entries/:id/meta/:key',
    summary: 'Set a meta entry',
    scope: 'entries:rw',
    params: metaParams,
    body: metaBody,
    responses: { 200: R.meta },
  },
  {
    method: 'get',
    path: '/silo/v1/entries/:id/meta/:key',
    summary: 'Fetch a meta entry',
    scope: 'entries:rw',
    params: metaParams,
    responses: { 200: R.meta },
  },
  {
    method: 'delete',
    path: '/silo/v1/entries/:id/meta/:key',
    summary: 'Remove a meta entry',
    scope: 'entries:rw',
    params: metaParams,
    responses: { 204: null },
  },
  {
    method: 'put',
    path: '/silo/v1/entries/:id/credentials/:name',
    summary: "Store a credential for the party (e.g. a portal's OAuth token); write-only",
    scope: 'entries:rw',
    params: credentialParams,
    body: credentialBody,
    responses: { 200: R.credential },
  },
  {
    method: 'get',
    path: '/silo/v1/entries/:id/credentials',
    summary: "The party's stored credentials, without their secrets",
    scope: 'entries:rw',
    params: credentialListParams,
    responses: { 200: R.credentialList },
  },
  {
    method: 'delete',
    path: '/silo/v1/entries/:id/credentials/:name',
    summary: 'Remove a stored credential',
    scope: 'entries:rw',
    params: credentialParams,
    responses: { 204: null },
  },

  // transform/v1
  {
    method: 'put',
    path: '/transform/v1/workflows/:id',
    summary: 'Create a workflow definition',
    scope: 'jobs:rw',
    params: idParam,
    body: workflowInput,
    responses: { 200: R.workflow, 201: R.workflow },
  },
  {
    method: 'get',
    path: '/transform/v1/workflows',
    summary: 'List workflow definitions (built-ins included)',
    scope: 'jobs:rw',
    query: listWorkflowsQuery,
    responses: { 200: R.workflowList },
  },
  {
    method: 'get',
    path: '/transform/v1/workflows/:id',
    summary: 'Fetch a workflow definition',
    scope: 'jobs:rw',
    params: idParam,
    responses: { 200: R.workflow },
  },
  {
    method: 'post',
    path: '/transform/v1/jobs',
    summary: 'Run a workflow on an entry',
    scope: 'jobs:rw',
    query: createJobQuery,
    body: jobBody,
    responses: { 202: R.job },
  },
  {
    method: 'put',
    path: '/transform/v1/jobs/:id',
    summary: 'Run a workflow on an entry, with a client-chosen job id',
    scope: 'jobs:rw',
    params: idParam,
    query: createJobQuery,
    body: jobBody,
    responses: { 202: R.job },
  },
  {
    method: 'get',
    path: '/transform/v1/jobs',
    summary: 'List jobs, newest first (by entry, status, workflow)',
    scope: 'jobs:rw',
    query: listJobsQuery,
    responses: { 200: R.jobPage },
  },
  {
    method: 'post',
    path: '/transform/v1/jobs/:id/cancel',
    summary: 'Cancel a job, until a step acting outside (directory, Peppol) has started',
    scope: 'jobs:rw',
    params: idParam,
    body: cancelJobBody,
    responses: { 200: R.job },
  },
  {
    method: 'get',
    path: '/transform/v1/jobs/key/:key',
    summary: 'Fetch a job by its key',
    scope: 'jobs:rw',
    params: keyParam,
    responses: { 200: R.job },
  },
  {
    method: 'get',
    path: '/transform/v1/jobs/:id',
    summary: 'Fetch a job, its steps and faults',
    scope: 'jobs:rw',
    params: idParam,
    responses: { 200: R.job },
  },

  // admin/v1
  {
    method: 'get',
    path: '/admin/v1/keys',
    summary: "List the workspace's API keys (never their secrets)",
    scope: 'admin',
    responses: { 200: R.apiKeyList },
  },
  {
    method: 'post',
    path: '/admin/v1/keys',
    summary: 'Create an API key (the secret is shown once)',
    scope: 'admin',
    body: keyBody,
    responses: { 201: R.createdApiKey },
  },
  {
    method: 'delete',
    path: '/admin/v1/keys/:id',
    summary: 'Revoke an API key, at once',
    scope: 'admin',
    params: keyIdParam,
    responses: { 204: null },
  },

  // events/v1
  {
    method: 'post',
    path: '/events/v1/subscriptions',
    summary: 'Subscribe a URL to event kinds (the signing secret is shown once)',
    scope: 'admin',
    body: subscriptionBody,
    responses: { 201: R.createdSubscription },
  },
  {
    method: 'get',
    path: '/events/v1/subscriptions',
    summary: "The workspace's webhook subscriptions",
    scope: 'admin',
    responses: { 200: R.subscriptionList },
  },
  {
    method: 'get',
    path: '/events/v1/subscriptions/:id',
    summary: 'A webhook subscription',
    scope: 'admin',
    params: subscriptionParam,
    responses: { 200: R.subscription },
  },
  {
    method: 'delete',
    path: '/events/v1/subscriptions/:id',
    summary: 'Disable a webhook subscription',
    scope: 'admin',
    params: subscriptionParam,
    responses: { 204: null },
  },
  {
    method: 'get',
    path: '/events/v1/subscriptions/:id/deliveries',
    summary: 'Delivery log: each delivery and its attempts',
    scope: 'admin',
    params: subscriptionParam,
    query: pageQuery,
    responses: { 200: R.deliveryList },
  },
  {
    method: 'get',
    path: '/events/v1/events',
    summary: 'Events of the workspace, newest first (by entry, by kind)',
    scope: 'admin',
    query: eventsQuery,
    responses: { 200: R.eventList },
  },

  // apps/gov-fr/v1: the entry API
  {
    method: 'get',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/agreement',
    summary: 'The mandate PDF (pre-filled, or signed)',
    scope: 'entries:rw',
    params: entryParam,
    query: langQuery,
    responses: { 200: pdf },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/identity',
    summary: 'Upload one face of an identity document',
    scope: 'entries:rw',
    params: entryParam,
    body: identityBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/sign',
    summary: 'Sign the mandate (drawn image, or typed name)',
    scope: 'entries:rw',
    params: entryParam,
    query: langQuery,
    body: signBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/agreement',
    summary: 'Upload a mandate signed elsewhere',
    scope: 'entries:rw',
    params: entryParam,
    body: agreementBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/confirm',
    summary: 'Submit for the approval review',
    scope: 'entries:rw',
    params: entryParam,
    responses: { 200: R.submitted },
  },
  {
    method: 'delete',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/approval-link',
    summary: 'Revoke the wizard link',
    scope: 'entries:rw',
    params: entryParam,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/approval-link',
    summary: 'Issue a new wizard link for the waiting registration',
    scope: 'entries:rw',
    params: entryParam,
    responses: { 201: R.meta },
  },
  {
    method: 'post',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/decision',
    summary: 'Approve or reject a submission (operator)',
    scope: 'approvals',
    params: entryParam,
    body: decisionBody,
    responses: { 200: R.decision },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/entry/:silo_entry_id/identity/:view',
    summary: 'An identity image, decrypted (operator)',
    scope: 'approvals',
    params: viewParam,
    responses: { 200: { mediaType: 'image/*' } },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/review/submissions',
    summary: 'Submissions awaiting a decision (operator)',
    scope: 'approvals',
    responses: { 200: R.submissions },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/review/submissions/:silo_entry_id',
    summary: 'A submission as the operator reviews it: party, signer, identity images, Annuaire record (operator)',
    scope: 'approvals',
    params: reviewEntryParam,
    responses: { 200: R.reviewSubmission },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/review/submissions/:silo_entry_id/mandate',
    summary: 'The signed mandate under review (operator)',
    scope: 'approvals',
    params: reviewEntryParam,
    responses: { 200: pdf },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/directory/siren/:siren',
    summary: 'Directory lines of a SIREN (PPF Annuaire)',
    scope: 'entries:rw',
    params: sirenParam,
    responses: { 200: R.directoryLookup },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/v1/directory/identifier/:identifier',
    summary: 'Directory lines of an addressing identifier',
    scope: 'entries:rw',
    params: identifierParam,
    responses: { 200: R.directoryLookup },
  },

  // apps/peppol/v1: migrations of a participant to another SMP
  {
    method: 'post',
    path: '/apps/peppol/v1/entry/:silo_entry_id/participants/:participant_id/migration-key',
    summary: 'Issue a migration key for a Peppol participant moving to another provider (shown once)',
    scope: 'entries:rw',
    params: participantParams,
    responses: { 201: migrationKeyIssued },
  },
  {
    method: 'get',
    path: '/apps/peppol/v1/entry/:silo_entry_id/participants/:participant_id/migration-key',
    summary: "A participant's migration to another provider: prepared, or done",
    scope: 'entries:rw',
    params: participantParams,
    responses: { 200: migrationStatus },
  },

  // The wizard: its address is the link published in the approval-link meta (seed §2); the ref is the credential.
  {
    method: 'get',
    path: '/reg/:ref/start',
    summary: 'The registration wizard (HTML)',
    params: wizardRef,
    responses: { 200: { mediaType: 'text/html' } },
  },
  {
    method: 'get',
    path: '/reg/:ref/api/state',
    summary: 'Wizard: progress and the details shown',
    params: wizardRef,
    responses: { 200: R.wizardState },
  },
  {
    method: 'post',
    path: '/reg/:ref/api/details',
    summary: 'Wizard: confirm the details, completing missing signer fields',
    params: wizardRef,
    body: detailsBody,
    responses: { 204: null },
  },
  {
    method: 'get',
    path: '/reg/:ref/api/agreement',
    summary: 'Wizard: the mandate PDF',
    params: wizardRef,
    query: wizardLangQuery,
    responses: { 200: pdf },
  },
  {
    method: 'post',
    path: '/reg/:ref/api/identity',
    summary: 'Wizard: upload one face of an identity document',
    params: wizardRef,
    body: identityBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/reg/:ref/api/sign',
    summary: 'Wizard: sign the mandate',
    params: withRef(),
    query: wizardLangQuery,
    body: signBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/reg/:ref/api/agreement',
    summary: 'Wizard: upload a mandate signed elsewhere',
    params: wizardRef,
    body: agreementBody,
    responses: { 204: null },
  },
  {
    method: 'post',
    path: '/reg/:ref/api/confirm',
    summary: 'Wizard: submit for the approval review',
    params: wizardRef,
    responses: { 200: R.submitted },
  },

  // Our SMP (Peppol SMP 1.x paths) and the operational endpoints.
  {
    method: 'get',
    path: '/smp/:participant',
    summary: 'SMP ServiceGroup (XML)',
    params: smpParticipant,
    responses: { 200: { mediaType: 'text/xml' }, 304: null },
  },
  {
    method: 'get',
    path: '/smp/:participant/services/:doctype',
    summary: 'SMP SignedServiceMetadata (XML)',
    params: smpParticipant.extend({ doctype: z.string() }),
    responses: { 200: { mediaType: 'text/xml' }, 304: null },
  },
  {
    method: 'get',
    path: '/smp/businesscard/:participant',
    summary: 'Peppol Directory BusinessCard (XML)',
    params: smpParticipant,
    responses: { 200: { mediaType: 'text/xml' } },
  },
  { method: 'get', path: '/metrics', summary: 'Prometheus metrics', responses: { 200: { mediaType: 'text/plain' } } },
  {
    method: 'get',
    path: '/docs/',
    summary: 'This reference, interactive (HTML)',
    responses: { 200: { mediaType: 'text/html' } },
  },
  {
    method: 'get',
    path: '/apps/gov-fr/review/',
    summary: 'The operator review page (HTML; its data needs the approvals scope)',
    responses: { 200: { mediaType: 'text/html' } },
  },
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    responses: { 200: { mediaType: 'application/json' } },
  },
];

/** Paths whose address is not ours to version: set by the seed (wizard link), by Peppol (SMP), or by convention. */
export const UNVERSIONED = /^\/(reg|smp|metrics|openapi\.json|docs|apps\/gov-fr\/review)(\/|$)/;

const MATCHERS = OPERATIONS.map((op) => ({
  op,
  re: new RegExp(`^${op.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, '[^/]+')}$`),
}));

/** The operation a request addresses (its path pattern names it in metrics and traces), if any. */
export function operationFor(method: string, pathname: string): Operation | undefined {
  return MATCHERS.find((m) => m.op.method === method.toLowerCase() && m.re.test(pathname))?.op;
}
