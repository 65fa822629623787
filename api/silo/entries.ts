// silo/v1 entries: the parties, created, corrected, listed and read.
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../../platform/store/db';
import { getEntry, getEntryByKey, listEntries } from '../../platform/store/entries';
import { createPartyEntry } from '../../domain/party/entries';
import { partyDocument } from '../../domain/party';
import { applyUpdate } from '../../domain/party/document-update';
import { changeParty } from '../../domain/mandate/party-change';
import { notFound } from '../../web/http/problem';
import { assertStorable } from '../../web/http/no-nul';
import { route } from '../../web/http/route';
import * as R from '../schemas';
import { auth } from '../auth';
import { EXAMPLE_PARTY } from '../reference';
import {
  JSON_PATCH,
  MERGE_PATCH,
  entryUpdate,
  jsonPatchBody,
  mergePatchBody,
  patchBodyParser,
  updateBody,
} from './entry-update';
import { entryBody, idParam, keyParam, listQuery } from './inputs';

type Deps = { db: Db; log: Logger };

// The route reads `data` as any object and checks it as a French party after: the reference shows that party.
const entryInput = entryBody.extend({ data: partyDocument });

const CREATE_DESCRIPTION =
  "Stores a party (a GOBL `org/party` document) as a new entry of the caller's workspace and returns it with its id. " +
  'The party is validated as a French company: its VAT code, its SIREN identity (`identities[type=SIREN]`, matching the VAT code). ' +
  "The mandate's signer is `people[0]`: their given name, surname and identity document number (`people[0].identities[0].code`); " +
  'they can also be completed by the signer in the wizard. `key` makes the creation findable (and unique) by your own reference.';

export const entryRoutes = [
  route({
    method: 'post',
    path: '/silo/v1/entries',
    operationId: 'createEntry',
    summary: 'Create an entry (a GOBL party)',
    description: CREATE_DESCRIPTION,
    scope: 'entries:rw',
    body: entryBody,
    documentedBody: entryInput,
    responses: { 200: R.entry },
    examples: { 'a French company': { data: EXAMPLE_PARTY, key: 'customer-552032534' } },
    errors: ['unsupported-schema', 'key-taken'],
    handle: ({ body, res }, { db }: Deps) => createPartyEntry(db, auth(res).workspaceId, crypto.randomUUID(), body),
  }),
  route({
    method: 'put',
    path: '/silo/v1/entries/:id',
    operationId: 'putEntry',
    summary: 'Create an entry with a client-chosen id',
    description:
      'As `POST /silo/v1/entries`, with the id chosen by the client (retrying it cannot create two entries). An id already used answers 409; an entry is never replaced by PUT: correct it with PATCH.',
    scope: 'entries:rw',
    params: idParam,
    body: entryBody,
    documentedBody: entryInput,
    responses: { 200: R.entry },
    examples: { 'a French company': { data: EXAMPLE_PARTY } },
    errors: ['unsupported-schema', 'key-taken', 'id-taken', 'id-not-available'],
    handle: ({ params, body, res }, { db }: Deps) => createPartyEntry(db, auth(res).workspaceId, params.id, body),
  }),
  route({
    method: 'patch',
    path: '/silo/v1/entries/:id',
    operationId: 'patchEntry',
    summary: "Correct an entry's party: a whole document, a merge patch or a JSON patch",
    description:
      'Corrects the party. The body is `{content_type, data, allow_invalid?, folder?}`: `content_type` `application/json` (the default) for a whole document, ' +
      '`application/merge-patch+json` for an RFC 7396 merge patch (`null` removes a field), `application/json-patch+json` for RFC 6902 operations (all applied, or none). ' +
      "A patch may also be sent as the request's own body, with that media type. The result is validated as on creation; with `allow_invalid: true` an invalid document is kept, " +
      'its problems in `faults` (code `invalid-data`), and no registration starts until it is corrected.\n\n' +
      'Against the mandate: until it is signed any field may change, and a change to what it says (name, SIREN, first address, signer) issues it again under the next number, ' +
      'returned as `mandate_number` (an upload of the old one is then refused as `superseded-mandate`). Once signed and until decided, such a change is refused (409 `mandate-signed`); ' +
      'other fields (emails, telephones, websites…) may still change. A registered party may change them: the answer says which in `mandate_renewal`, and the address update (its `workflow_id`) has a new mandate signed and approved, the one in force meanwhile, then updates the directory and Peppol. The SIREN never changes once a registration has started.',
    scope: 'entries:rw',
    params: idParam,
    body: updateBody,
    bodyParsing: 'handler',
    otherBodies: { [MERGE_PATCH]: mergePatchBody, [JSON_PATCH]: jsonPatchBody },
    before: patchBodyParser,
    responses: { 200: R.updatedEntry },
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
      'job-running',
      'draft-refused',
    ],
    handle: ({ params, req, res }, deps: Deps) => {
      const update = entryUpdate(req);
      return changeParty(deps, auth(res).workspaceId, params.id, {
        apply: (current) => {
          const doc = applyUpdate(current, update);
          assertStorable(doc, 'data');
          return doc;
        },
        allowInvalid: update.allowInvalid,
        folder: update.folder,
      });
    },
  }),
  route({
    method: 'get',
    path: '/silo/v1/entries',
    operationId: 'listEntries',
    summary: 'List entries, newest first',
    description:
      "The workspace's entries, newest first (`ascending=true` for oldest first), `limit` at a time; pass `next_cursor` as `cursor` for the next page. `folder` and `state` filter. Entries are listed without their `data`.",
    scope: 'entries:rw',
    query: listQuery,
    responses: { 200: R.entryPage },
    handle: async ({ query: q, res }, { db }: Deps) => {
      const page = await listEntries(db, auth(res).workspaceId, q);
      return {
        limit: q.limit,
        ...(q.cursor && { cursor: q.cursor }),
        ...(q.folder && { folder: q.folder }),
        ...(q.state && { state: q.state }),
        ...page,
      };
    },
  }),
  route({
    method: 'get',
    path: '/silo/v1/entries/key/:key',
    operationId: 'getEntryByKey',
    summary: 'Fetch an entry by its key',
    description: 'The entry created with this `key`, with its party, meta rows, state and jobs.',
    scope: 'entries:rw',
    params: keyParam,
    responses: { 200: R.entry },
    handle: async ({ params, res }, { db }: Deps) => {
      const entry = await getEntryByKey(db, auth(res).workspaceId, params.key);
      if (!entry) throw notFound(`entry with key "${params.key}"`);
      return entry;
    },
  }),
  route({
    method: 'get',
    path: '/silo/v1/entries/:id',
    operationId: 'getEntry',
    summary: 'Fetch an entry',
    description:
      "The entry with its party (`data`), its `state` (see the Entry schema), what a waiting registration `waiting_for`, its `current_job` and `last_job`, its `faults` and meta rows — among them `approval-link`, the signer's wizard link.",
    scope: 'entries:rw',
    params: idParam,
    responses: { 200: R.entry },
    handle: async ({ params, res }, { db }: Deps) => {
      const entry = await getEntry(db, auth(res).workspaceId, params.id);
      if (!entry) throw notFound(`entry ${params.id}`);
      return entry;
    },
  }),
];
