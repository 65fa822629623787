// The signer's operations (seed §4.1 and §4.3), declared once and served at two addresses: the entry API
// (apps/gov-fr/v1/entry/{id}/…, an integrator's key) and the wizard (/reg/{ref}/api/…, the link's ref). The address
// says how the entry is found and what else it refuses; the rules are the mandate's (domain/mandate/).
// `agreement` in the paths is the Invopop contract's name for the mandate (wire); the code says mandate.
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Scope } from '../../platform/store/workspaces';
import { mandatePdfOf, type MandateDeps } from '../../domain/mandate/context';
import { signInApp, uploadIdentity, uploadSignedMandate } from '../../domain/mandate/signature';
import { confirm } from '../../domain/mandate/decision';
import { signedMandateBody, identityBody, signBody } from '../../domain/mandate/inputs';
import * as GovFr from './schemas';
import { rejectNulCharacters } from '../http/no-nul';
import { uploadJson } from '../http/upload-json';
import type { ProblemCodeName } from '../http/problem-codes';
import { route, type Route } from '../http/route';

/** The entry a request addresses, in its workspace. */
export interface SignerEntry {
  workspaceId: string;
  entryId: string;
}

export interface SignerAddress {
  /** Where the operations sit: `/apps/gov-fr/v1/entry/:silo_entry_id` or `/reg/:ref/api`. */
  base: string;
  params: z.ZodObject;
  /** The mandate's language, `?lang=fr|en`. */
  langQuery: z.ZodObject<{ lang: z.ZodDefault<z.ZodEnum<{ fr: 'fr'; en: 'en' }>> }>;
  scope?: Scope;
  /** Prefixes the operation ids and summaries of the second address, so that each stays unique. */
  name?: { operation: string; summary: string };
  /** What every operation at this address may also refuse (an unknown link, no mandate). */
  refusals: readonly ProblemCodeName[];
  entry(req: Request, res: Response, deps: MandateDeps): Promise<SignerEntry>;
  /** Checked before a submission (the wizard's first step done). */
  beforeSubmit?(deps: MandateDeps, entry: SignerEntry): Promise<void>;
  note: string;
}

export const pdf = { mediaType: 'application/pdf' };

/** Why an uploaded signed mandate is refused. */
export const SIGNED_PDF_REFUSALS: readonly ProblemCodeName[] = [
  'bad-encoding',
  'empty',
  'busy',
  'too-complex',
  'not-a-pdf',
  'unreadable-pdf',
  'encrypted-pdf',
  'active-content',
  'not-signed',
  'not-this-mandate',
  'superseded-mandate',
  'bad-signature',
];
/** Why an uploaded image (an identity document's face, a drawn signature) is refused. */
export const IMAGE_REFUSALS: readonly ProblemCodeName[] = [
  'bad-encoding',
  'empty',
  'busy',
  'image-too-large',
  'not-an-image',
  'unreadable-image',
  'too-complex',
];

/** Who sent a request, as the audit trail records it. */
export const clientOf = (req: Request) => ({ ip: req.ip, userAgent: req.get('user-agent') });
const uploads = [uploadJson, rejectNulCharacters];

export function signerRoutes(at: SignerAddress): Route<MandateDeps>[] {
  const id = (op: string) => (at.name ? `${at.name.operation}${op[0]!.toUpperCase()}${op.slice(1)}` : op);
  const summary = (s: string) => (at.name ? `${at.name.summary}${s[0]!.toLowerCase()}${s.slice(1)}` : s);
  const common = { params: at.params, scope: at.scope };
  return [
    route({
      ...common,
      method: 'get',
      path: `${at.base}/agreement`,
      operationId: id('getMandate'),
      summary: summary('The mandate PDF (pre-filled, or signed)'),
      description: `The mandate as a PDF: pre-filled until it is signed, then the signed one (sealed once submitted). \`lang=en\` for the English text. ${at.note}`,
      query: at.langQuery,
      responses: { 200: pdf },
      errors: [...at.refusals, 'signer-missing'],
      handle: async ({ query, req, res }, deps: MandateDeps) => {
        const e = await at.entry(req, res, deps);
        const { pdf: bytes, number } = await mandatePdfOf(deps, e.workspaceId, e.entryId, query.lang);
        res
          .type('application/pdf')
          .set('content-disposition', `inline; filename="mandat-${number}.pdf"`)
          .send(Buffer.from(bytes));
      },
    }),
    route({
      ...common,
      method: 'post',
      path: `${at.base}/identity`,
      operationId: id('uploadIdentity'),
      summary: summary('Upload one face of an identity document'),
      description: `Uploads one face of the signer's identity document (PNG or JPEG, base64): \`front\` and \`back\` of an identity card, or a passport \`page\`. ${at.note}`,
      body: identityBody,
      before: uploads,
      responses: { 204: null },
      examples: { 'the front of an ID card': { view: 'front', data: '<base64 of a JPEG>' } },
      errors: [...at.refusals, 'under-review', ...IMAGE_REFUSALS],
      handle: async ({ body, req, res }, deps: MandateDeps) => {
        const e = await at.entry(req, res, deps);
        await uploadIdentity(deps, e.workspaceId, e.entryId, body.view, body.data, clientOf(req));
      },
    }),
    route({
      ...common,
      method: 'post',
      path: `${at.base}/sign`,
      operationId: id('sign'),
      summary: summary('Sign the mandate (drawn image, or typed name)'),
      description:
        "Signs the mandate in the app: with a drawn signature (a PNG, base64) or, without one (or without a body), the signer's typed name. " +
        'The mandate signed is the one current when the request arrives: issued again meanwhile (a party change), 409 `mandate-replaced`. ' +
        '`mandate_number` (optional, our addition to the public contract) names the mandate the signer read: 409 `mandate-replaced` when it is no longer current. ' +
        'Without it, the mandate last downloaded (GET agreement, through the API or the wizard) stands for what was read: issued again since, 409 `mandate-changed` — download it again, or name it. ' +
        at.note,
      query: at.langQuery,
      body: signBody,
      bodyParsing: 'optional',
      before: uploads,
      responses: { 204: null },
      examples: {
        typed: {},
        drawn: { signature: '<base64 of a PNG>' },
        'naming the mandate read': { mandate_number: '356000000_552032534_20261122_01' },
      },
      errors: [
        ...at.refusals,
        'mandate-replaced',
        'mandate-changed',
        'signer-missing',
        'under-review',
        ...IMAGE_REFUSALS,
      ],
      handle: async ({ query, body, req, res }, deps: MandateDeps) => {
        const e = await at.entry(req, res, deps);
        const b = body ?? {};
        await signInApp(
          deps,
          e.workspaceId,
          e.entryId,
          b.signature || undefined,
          clientOf(req),
          query.lang,
          b.mandate_number,
        );
      },
    }),
    route({
      ...common,
      method: 'post',
      path: `${at.base}/agreement`,
      operationId: id('uploadSignedMandate'),
      summary: summary('Upload a mandate signed elsewhere'),
      description: `Uploads the mandate signed elsewhere (a PDF, base64): digitally signed, with a signature added, or printed, signed and scanned. It must be this entry's current mandate. ${at.note}`,
      body: signedMandateBody,
      before: uploads,
      responses: { 204: null },
      examples: { 'a signed PDF': { data: '<base64 of the signed PDF>' } },
      errors: [...at.refusals, 'mandate-replaced', 'signer-missing', 'under-review', ...SIGNED_PDF_REFUSALS],
      handle: async ({ body, req, res }, deps: MandateDeps) => {
        const e = await at.entry(req, res, deps);
        await uploadSignedMandate(deps, e.workspaceId, e.entryId, body.data, clientOf(req));
      },
    }),
    route({
      ...common,
      method: 'post',
      path: `${at.base}/confirm`,
      operationId: id('submit'),
      summary: summary('Submit for the approval review'),
      description:
        "Submits the signed mandate and the identity document for the operator's review; the entry goes `submitted`. " +
        at.note,
      responses: { 200: GovFr.submitted },
      errors: [
        ...at.refusals,
        'incomplete',
        'not-waiting',
        'not-yet',
        'not-running',
        'unavailable',
        ...(at.beforeSubmit ? (['details-unconfirmed'] as const) : []),
      ],
      handle: async ({ req, res }, deps: MandateDeps) => {
        const e = await at.entry(req, res, deps);
        await at.beforeSubmit?.(deps, e);
        return confirm(deps, e.workspaceId, e.entryId, clientOf(req));
      },
    }),
  ];
}
