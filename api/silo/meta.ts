// silo/v1 meta rows: a caller's own references, flags and links on an entry, and the values the service reads
// (invoicing addresses, a take-over consent, a Peppol migration key), each also under its own typed operation.
import type { Db } from '../../platform/store/db';
import type { DataBox } from '../../platform/crypto/data-box';
import type { Config } from '../../platform/config';
import { getMetaByRef } from '../../platform/store/entry-meta';
import { metaOf, removeCallerMeta, setCallerMeta } from '../../domain/party/caller-meta';
import { notFound } from '../../web/http/problem';
import { route, type RouteInput } from '../../web/http/route';
import type { z } from 'zod';
import * as R from '../schemas';
import { auth } from '../auth';
import { STORED, dayAhead } from '../reference';
import { idParam, metaBody, metaParams, metaRefParams, metaRefQuery } from './inputs';
import { KNOWN_META, typedMeta, typedMetaBody } from './meta-values';
import { ownEntry } from './own-entry';

type Deps = { db: Db; box: DataBox; config: Pick<Config, 'PA_MATRICULE'> };

const PUT_DESCRIPTION =
  'Sets a meta row of the entry (your own references, flags, links). `fr-invoicing-addresses` states the addresses the company receives invoices at and what its mandate entrusts — `{entrust: all|listed, start?: YYYY-MM-DD, addresses: [{} (the SIREN), {siret}, {siret, routing_code: {id, label, nature?, state?, type?, commitment_required?}}, {suffix}]}` — checked when set (400 naming each fault). ' +
  '`fr-former-matricule` is the company\'s consent to leave another platform for us, read by the registration: that platform\'s matricule, 4 digits (`"0042"` or `{"matricule": "0042"}`; neither 9998 nor ours), set before the mandate is signed (the mandate states it; one set after counts only once a new mandate is signed). ' +
  '`peppol-migration-key` too: the key its previous Peppol provider prepared at the SML (PrepareToMigrate), to migrate its participants to us — a string for every participant, or an object mapping participant ids to keys. ' +
  "The object names only the entry's own participants, `0225:<address>` for each of its invoicing addresses (set `fr-invoicing-addresses` first), with or without the scheme `iso6523-actorid-upis::`, in any case; any other id is refused (400 naming it). " +
  'The keys are secrets: stored encrypted, and shown masked (`"********"`, the participant ids kept) in this answer, the entry and every meta read; only the Peppol step reads them. ' +
  `A value holds at most ${STORED.values} JSON values and keys (each object, array, string, number, boolean, null and object key counts one) and ${STORED.bytes} bytes as compact JSON (UTF-8): a larger one is refused, 400 naming the limit. ` +
  'These three keys have their own operations too, whose bodies are typed.';

const ADDRESSES_EXAMPLE = {
  src: 'api',
  value: {
    entrust: 'listed',
    start: dayAhead(30),
    addresses: [
      {},
      { siret: '55203253400018', routing_code: { id: 'ACHATS', label: 'Service achats' } },
      { suffix: 'EU' },
    ],
  },
};
const EXAMPLES: Record<string, Record<string, unknown>> = {
  'fr-invoicing-addresses': { 'invoicing addresses': ADDRESSES_EXAMPLE },
  'fr-former-matricule': { 'a take-over': { src: 'api', value: '0042' } },
  'peppol-migration-key': {
    'a Peppol migration key': { src: 'api', value: 'Ab3$xY7!kLm9#qRt' },
    'a Peppol migration key per participant': {
      src: 'api',
      value: { '0225:552032534': 'Ab3$xY7!kLm9#qRt', '0225:552032534_eu': 'Zq8#pW2@nVc4$sEx' },
    },
  },
};

const put = async (
  id: string,
  key: string,
  input: z.output<typeof metaBody>,
  res: RouteInput<undefined, undefined, undefined>['res'],
  deps: Deps,
) => {
  const entry = await ownEntry(deps.db, auth(res).workspaceId, id);
  return setCallerMeta({ db: deps.db, box: deps.box, matricule: deps.config.PA_MATRICULE }, entry, key, input);
};

/** PUT of one known key: its value typed (checked by the domain, as through the generic operation). */
const typedPut = (known: (typeof KNOWN_META)[number]) =>
  route({
    method: 'put',
    path: `/silo/v1/entries/:id/meta/${known.key}`,
    operationId: `put${known.operation}`,
    summary: `Set the entry's ${known.key}`,
    description: `Sets the meta row \`${known.key}\`: as \`PUT /silo/v1/entries/{id}/meta/{key}\` with this key, its value typed.`,
    scope: 'entries:rw',
    params: idParam,
    body: metaBody,
    documentedBody: typedMetaBody(known.value),
    responses: { 200: typedMeta(known.value, known.id) },
    examples: EXAMPLES[known.key],
    errors: ['invalid-data'],
    handle: ({ params, body, res }, deps: Deps) => put(params.id, known.key, body, res, deps),
  });

export const metaRoutes = [
  // Before the routes under /entries/:id: "meta" is not an entry id.
  route({
    method: 'get',
    path: '/silo/v1/entries/meta/:key/:ref',
    operationId: 'findMetaByRef',
    summary: "Find a meta row by its key and ref, with its entry's id",
    description:
      "The meta row of the workspace with this key and ref (a ref is unique in a workspace), as it appears in its entry's `meta`, with its `entry_id`. `owned=true` is accepted: every lookup is scoped to the caller's workspace.",
    scope: 'entries:rw',
    params: metaRefParams,
    query: metaRefQuery,
    responses: { 200: R.meta },
    handle: async ({ params, res }, { db }: Deps) => {
      const meta = await getMetaByRef(db, auth(res).workspaceId, params.key, params.ref);
      if (!meta) throw notFound(`meta "${params.key}" with ref "${params.ref}"`);
      return meta;
    },
  }),
  ...KNOWN_META.map(typedPut),
  route({
    method: 'put',
    path: '/silo/v1/entries/:id/meta/:key',
    operationId: 'putMeta',
    summary: 'Set a meta entry',
    description: PUT_DESCRIPTION,
    scope: 'entries:rw',
    params: metaParams,
    body: metaBody,
    responses: { 200: R.meta },
    examples: {
      ...Object.assign({}, ...Object.values(EXAMPLES)),
      'your reference': { src: 'crm', ref: 'CUST-1234', indexed: true },
    },
    errors: ['service-meta', 'meta-ref-taken', 'invalid-data'],
    handle: ({ params, body, res }, deps: Deps) => put(params.id, params.key, body, res, deps),
  }),
  route({
    method: 'get',
    path: '/silo/v1/entries/:id/meta/:key',
    operationId: 'getMeta',
    summary: 'Fetch a meta entry',
    description: 'One meta row of the entry.',
    scope: 'entries:rw',
    params: metaParams,
    responses: { 200: R.meta },
    handle: async ({ params, res }, { db }: Deps) => {
      await ownEntry(db, auth(res).workspaceId, params.id);
      return metaOf(db, params.id, params.key);
    },
  }),
  route({
    method: 'delete',
    path: '/silo/v1/entries/:id/meta/:key',
    operationId: 'deleteMeta',
    summary: 'Remove a meta entry',
    description: 'Removes a meta row (not those the service writes).',
    scope: 'entries:rw',
    params: metaParams,
    responses: { 204: null },
    errors: ['service-meta'],
    handle: async ({ params, res }, { db }: Deps) => {
      await ownEntry(db, auth(res).workspaceId, params.id);
      await removeCallerMeta(db, params.id, params.key);
    },
  }),
];
