// Our SMP's public read API (Peppol SMP 1.x), at the paths Peppol sets, without a key (api/app.ts mounts it at /smp,
// outside the rate limits: many access points read from behind one address, and the record cache answers them):
//   GET /smp/{participant}                       → ServiceGroup listing the record's document types
//   GET /smp/{participant}/services/{doctype}    → SignedServiceMetadata with our AS4 endpoint, signed by the SMP key
//   GET /smp/businesscard/{participant}          → Peppol Directory BusinessCard (only when Directory visibility is on)
// The documents, their signatures and the caches are integrations/peppol/smp-documents.ts's; here is their HTTP.
// Path segments arrive percent-encoded (`iso6523-actorid-upis%3A%3A0225%3A…`); Express decodes them. Anything
// not enabled in our records is 404.
// HTTP caching: documents carry a strong ETag and `Cache-Control: public, max-age=<httpMaxAgeS>`; a conditional GET
// whose ETag still matches gets 304 without a body. Errors are `no-store`, so a participant registered a moment
// later is not hidden by a cached 404. They are problem details as everywhere else (web/http/problem.ts): 400
// `invalid-request` for an identifier that is not one (control characters and white space included: a NUL would
// fail in the store, a trailing newline must not name the participant), 404 `not-found`.
import type { Request, RequestHandler, Response, Router } from 'express';
import { z } from 'zod';
import { InvalidParticipantIdError, type ParticipantId } from '../../integrations/peppol/participant-id';
import {
  smpDocuments,
  smpParticipant,
  type SmpDeps,
  type SmpDocument,
  type SmpDocuments,
  type SmpOptions,
} from '../../integrations/peppol/smp-documents';
import type { SmpRecord } from '../../platform/store/peppol-participants';
import { coded } from '../../web/http/problem';
import { mountRoutes, route } from '../../web/http/route';

type Deps = { smp: SmpDocuments; cacheControl: string };

const XML_TYPE = 'text/xml; charset=utf-8';
/** Control characters (C0, DEL, C1) and white space of any kind: in no Peppol identifier. */
const UNFIT_CHARACTER = /[\p{Cc}\s]/u;

const NO_STORE = { 'Cache-Control': 'no-store' };
const invalid = (detail: string) => coded(400, 'invalid-request', detail, NO_STORE);
const notFound = (what: string) => coded(404, 'not-found', `${what} not found`, NO_STORE);

/**
 * Refuses (400) a path value with a control character or white space, before the route's parsing (whose refusal of
 * a NUL would not say this) and before anything looks it up. `named`: path parameter → what it names, in the order
 * they are checked.
 */
const identifiers =
  (named: Record<string, string>): RequestHandler =>
  (req, _res, next) => {
    for (const [param, what] of Object.entries(named)) {
      const c = UNFIT_CHARACTER.exec(String(req.params[param] ?? ''))?.[0].codePointAt(0);
      if (c !== undefined)
        throw invalid(
          `the ${what} must not contain control characters or white space (U+${c.toString(16).toUpperCase().padStart(4, '0')} found)`,
        );
    }
    next();
  };

/** The path's participant and its enabled record: 400 for an identifier that is not one, 404 for no record. */
async function recordOf(raw: string, smp: SmpDocuments): Promise<{ p: ParticipantId; rec: SmpRecord }> {
  let p: ParticipantId;
  try {
    p = smpParticipant(raw);
  } catch (err) {
    throw err instanceof InvalidParticipantIdError ? invalid(err.message) : err;
  }
  const rec = await smp.record(p);
  if (!rec) throw notFound('participant');
  return { p, rec };
}

/**
 * Sends a document, or 304 when If-None-Match holds its ETag (weak comparison, RFC 9110 §13.1.2). Evaluated here
 * rather than by Express, which ignores validators when the request says `Cache-Control: no-cache`, as fetch()
 * clients do with every conditional request; that directive is for caches, not for the origin server.
 */
function send(req: Request, res: Response, doc: SmpDocument, cacheControl: string): void {
  res.type(XML_TYPE).set({ ETag: doc.etag, 'Cache-Control': cacheControl });
  const tags = req
    .get('if-none-match')
    ?.split(',')
    .map((t) => t.trim().replace(/^W\//, ''));
  if (tags?.includes(doc.etag) || tags?.includes('*')) res.status(304).end();
  else res.send(doc.xml);
}

const participantParams = z.object({
  participant: z.string().describe('iso6523-actorid-upis::0225:<SIREN>, percent-encoded'),
});

export const smpRoutes = [
  route({
    method: 'get',
    path: '/smp/:participant',
    operationId: 'smpServiceGroup',
    summary: 'SMP ServiceGroup (XML)',
    description: "The participant's SMP ServiceGroup (Peppol SMP 1.x), read by Peppol access points.",
    params: participantParams,
    responses: { 200: { mediaType: 'text/xml' }, 304: null },
    before: [identifiers({ participant: 'participant identifier' })],
    handle: async ({ params, req, res }, { smp, cacheControl }: Deps) => {
      const { p, rec } = await recordOf(params.participant, smp);
      send(req, res, smp.serviceGroup(p, rec), cacheControl);
    },
  }),
  route({
    method: 'get',
    path: '/smp/:participant/services/:doctype',
    operationId: 'smpServiceMetadata',
    summary: 'SMP SignedServiceMetadata (XML)',
    description: 'The signed ServiceMetadata of one document type.',
    params: participantParams.extend({ doctype: z.string() }),
    responses: { 200: { mediaType: 'text/xml' }, 304: null },
    before: [identifiers({ doctype: 'document type identifier', participant: 'participant identifier' })],
    handle: async ({ params, req, res }, { smp, cacheControl }: Deps) => {
      const { p, rec } = await recordOf(params.participant, smp);
      const doc = smp.serviceMetadata(p, rec, params.doctype);
      if (!doc) throw notFound('document type');
      send(req, res, doc, cacheControl);
    },
  }),
  route({
    method: 'get',
    path: '/smp/businesscard/:participant',
    operationId: 'smpBusinessCard',
    summary: 'Peppol Directory BusinessCard (XML)',
    description: "The participant's business card, read by the Peppol Directory.",
    params: participantParams,
    responses: { 200: { mediaType: 'text/xml' } },
    before: [identifiers({ participant: 'participant identifier' })],
    handle: async ({ params, req, res }, { smp, cacheControl }: Deps) => {
      const { p, rec } = await recordOf(params.participant, smp);
      const card = await smp.businessCard(p, rec);
      if (!card) throw notFound('business card');
      send(req, res, card, cacheControl);
    },
  }),
];

/**
 * Our SMP's routes over its documents, mounted at /smp (api/app.ts; a test or benchmark on its own app, with
 * web/http/problem.ts's errorHandler after it to answer the problems).
 */
export const serveSmp = (deps: SmpDeps, opts: SmpOptions): Router =>
  mountRoutes('/smp', smpRoutes, {
    smp: smpDocuments(deps, opts),
    cacheControl: `public, max-age=${opts.httpMaxAgeS ?? 60}`,
  });
