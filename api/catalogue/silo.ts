// silo/v1: entries (the parties), their meta and their stored credentials.
import { credentialBody, credentialListParams, credentialParams } from '../credentials';
import * as R from '../schemas';
import * as Workspace from '../workspace-schemas';
import { partyDocument } from '../../domain/party';
import {
  entryBody,
  idParam,
  keyParam,
  listQuery,
  metaBody,
  metaParams,
  metaRefParams,
  metaRefQuery,
} from '../entries-v1';
import { JSON_PATCH, jsonPatchBody, MERGE_PATCH, mergePatchBody, updateBody } from '../entry-update';
import { EXAMPLE_PARTY, STORED } from './common';
import type { Operation, OperationDoc } from './operation';

// The router reads `data` as any object and checks it as a French party after: the reference shows that party.
const entryInput = entryBody.extend({ data: partyDocument });

export const operations: Operation[] = [
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
    responses: { 200: Workspace.credential },
  },
  {
    method: 'get',
    path: '/silo/v1/entries/:id/credentials',
    summary: "The party's stored credentials, without their secrets",
    scope: 'entries:rw',
    params: credentialListParams,
    responses: { 200: Workspace.credentialList },
  },
  {
    method: 'delete',
    path: '/silo/v1/entries/:id/credentials/:name',
    summary: 'Remove a stored credential',
    scope: 'entries:rw',
    params: credentialParams,
    responses: { 204: null },
  },
];

export const docs: Record<string, OperationDoc> = {
  'post /silo/v1/entries': {
    description:
      "Stores a party (a GOBL `org/party` document) as a new entry of the caller's workspace and returns it with its id. " +
      'The party is validated as a French company: its VAT code, its SIREN identity (`identities[type=SIREN]`, matching the VAT code). ' +
      "The mandate's signer is `people[0]`: their given name, surname and identity document number (`people[0].identities[0].code`); " +
      'they can also be completed by the signer in the wizard. `key` makes the creation findable (and unique) by your own reference.',
    examples: { 'a French company': { data: EXAMPLE_PARTY, key: 'customer-552032534' } },
    errors: ['unsupported-schema', 'key-taken'],
  },
  'put /silo/v1/entries/:id': {
    description:
      'As `POST /silo/v1/entries`, with the id chosen by the client (retrying it cannot create two entries). An id already used answers 409; an entry is never replaced by PUT: correct it with PATCH.',
    examples: { 'a French company': { data: EXAMPLE_PARTY } },
    errors: ['unsupported-schema', 'key-taken', 'id-taken', 'id-not-available'],
  },
  'patch /silo/v1/entries/:id': {
    description:
      'Corrects the party. The body is `{content_type, data, allow_invalid?, folder?}`: `content_type` `application/json` (the default) for a whole document, ' +
      '`application/merge-patch+json` for an RFC 7396 merge patch (`null` removes a field), `application/json-patch+json` for RFC 6902 operations (all applied, or none). ' +
      "A patch may also be sent as the request's own body, with that media type. The result is validated as on creation; with `allow_invalid: true` an invalid document is kept, " +
      'its problems in `faults` (code `invalid-data`), and no registration starts until it is corrected.\n\n' +
      'Against the mandate: until it is signed any field may change, and a change to what it says (name, SIREN, first address, signer) issues it again under the next number, ' +
      'returned as `mandate_number` (an upload of the old one is then refused as `superseded-mandate`). Once signed, or while the party is registered, such a change is refused (409); ' +
      'other fields (emails, telephones, websites…) may still change. The SIREN never changes once a registration has started.',
    bodyExamples: {
      'application/json': {
        'a merge patch': {
          content_type: 'application/merge-patch+json',
          data: { name: 'Boulangerie Exemple et Fils SAS', emails: [{ addr: 'factures@boulangerie-exemple.fr' }] },
        },
        'a JSON patch': {
          content_type: 'application/json-patch+json',
          data: [
            { op: 'test', path: '/name', value: 'Boulangerie Exemple SAS' },
            { op: 'replace', path: '/addresses/0/locality', value: 'Lyon' },
          ],
        },
        'a whole document': { data: EXAMPLE_PARTY },
        'a draft kept invalid': {
          content_type: 'application/merge-patch+json',
          data: { tax_id: { country: 'FR', code: 'FR00' } },
          allow_invalid: true,
        },
      },
      'application/merge-patch+json': {
        'the signer completed': {
          people: [
            { name: { given: 'Élodie', surname: 'Martin' }, role: 'Présidente', identities: [{ code: 'X4RTBPFW4' }] },
          ],
        },
      },
      'application/json-patch+json': {
        'one field replaced': [{ op: 'replace', path: '/people/0/role', value: 'Gérante' }],
      },
    },
    errors: [
      'unsupported-schema',
      'patch-test-failed',
      'patch-unappliable',
      'siren-locked',
      'mandate-signed',
      'registered',
      'draft-refused',
    ],
  },
  'get /silo/v1/entries': {
    description:
      "The workspace's entries, newest first (`ascending=true` for oldest first), `limit` at a time; pass `next_cursor` as `cursor` for the next page. `folder` filters. Entries are listed without their `data`.",
  },
  'get /silo/v1/entries/key/:key': {
    description: 'The entry created with this `key`, with its party, meta rows, state and jobs.',
  },
  'get /silo/v1/entries/:id': {
    description:
      "The entry with its party (`data`), its `state` (see the Entry schema), what a waiting registration `waiting_for`, its `current_job` and `last_job`, its `faults` and meta rows — among them `approval-link`, the signer's wizard link.",
  },
  'get /silo/v1/entries/meta/:key/:ref': {
    description:
      "The meta row of the workspace with this key and ref (a ref is unique in a workspace), as it appears in its entry's `meta`, with its `entry_id`. `owned=true` is accepted: every lookup is scoped to the caller's workspace.",
  },
  'put /silo/v1/entries/:id/meta/:key': {
    description:
      'Sets a meta row of the entry (your own references, flags, links). `fr-invoicing-addresses` states the addresses the company receives invoices at and what its mandate entrusts — `{entrust: all|listed, start?: YYYY-MM-DD, addresses: [{} (the SIREN), {siret}, {siret, routing_code: {id, label, nature?, state?, type?, commitment_required?}}, {suffix}]}` — checked when set (400 naming each fault). ' +
      '`fr-former-matricule` is the company\'s consent to leave another platform for us, read by the registration: that platform\'s matricule, 4 digits (`"0042"` or `{"matricule": "0042"}`; neither 9998 nor ours), set before the mandate is signed (the mandate states it; one set after counts only once a new mandate is signed). ' +
      '`peppol-migration-key` too: the key its previous Peppol provider prepared at the SML (PrepareToMigrate), to migrate its participants to us — a string for every participant, or an object mapping participant ids to keys. ' +
      "The object names only the entry's own participants, `0225:<address>` for each of its invoicing addresses (set `fr-invoicing-addresses` first), with or without the scheme `iso6523-actorid-upis::`, in any case; any other id is refused (400 naming it). " +
      'The keys are secrets: stored encrypted, and shown masked (`"********"`, the participant ids kept) in this answer, the entry and every meta read; only the Peppol step reads them. ' +
      `A value holds at most ${STORED.values} JSON values and keys (each object, array, string, number, boolean, null and object key counts one) and ${STORED.bytes} bytes as compact JSON (UTF-8): a larger one is refused, 400 naming the limit.`,
    examples: {
      'invoicing addresses': {
        src: 'api',
        value: {
          entrust: 'listed',
          start: '2027-01-04',
          addresses: [
            {},
            { siret: '55203253400018', routing_code: { id: 'ACHATS', label: 'Service achats' } },
            { suffix: 'EU' },
          ],
        },
      },
      'a take-over': { src: 'api', value: '0042' },
      'a Peppol migration key': { src: 'api', value: 'Ab3$xY7!kLm9#qRt' },
      'a Peppol migration key per participant': {
        src: 'api',
        value: { '0225:552032534': 'Ab3$xY7!kLm9#qRt', '0225:552032534_eu': 'Zq8#pW2@nVc4$sEx' },
      },
      'your reference': { src: 'crm', ref: 'CUST-1234', indexed: true },
    },
    errors: ['service-meta', 'meta-ref-taken', 'invalid-data'],
  },
  'get /silo/v1/entries/:id/meta/:key': { description: 'One meta row of the entry.' },
  'delete /silo/v1/entries/:id/meta/:key': {
    description: 'Removes a meta row (not those the service writes).',
    errors: ['service-meta'],
  },
  'put /silo/v1/entries/:id/credentials/:name': {
    description: 'Stores a secret for the party, encrypted at rest; never returned (only its kind and details).',
    examples: { 'an API key': { kind: 'api-key', key: 'sk_live_…', portal: 'erp.example.com', account: 'ACME-001' } },
  },
  'get /silo/v1/entries/:id/credentials': { description: "The party's stored credentials, without their secrets." },
  'delete /silo/v1/entries/:id/credentials/:name': { description: 'Removes a stored credential.' },
};
