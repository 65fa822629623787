// The shapes of a submission's director check and signature evidence (domain/review/director-check.ts,
// submission-checks.ts) as the operators' queue and review detail answer them.
import { z } from 'zod';
import { timestamp } from '../http/schema-primitives';

export const signerCheck = z
  .discriminatedUnion('result', [
    z.object({
      result: z.literal('pass'),
      director: z.object({
        name: z.string(),
        role: z.string().optional(),
        via: z
          .object({ siren: z.string(), name: z.string(), role: z.string().optional() })
          .optional()
          .describe('the legal-person director (a holding) the signer represents'),
      }),
    }),
    z.object({
      result: z.literal('fail'),
      code: z
        .enum(['not-listed', 'not-representative', 'no-directors'])
        .describe(
          'not among the directors listed; listed, in a role that does not represent the company (an auditor, a board member); none listed',
        ),
      reason: z.string(),
      role: z.string().optional().describe('not-representative: the role the signer is listed in'),
      listed: z
        .array(z.object({ name: z.string(), role: z.string().optional(), siren: z.string().optional() }))
        .describe('the directors the register lists (their first 20; a legal person with its SIREN)'),
    }),
    z.object({
      result: z.literal('unavailable'),
      code: z
        .enum(['no-siren', 'no-name', 'not-public', 'no-answer', 'not-checked'])
        .describe(
          'no SIREN; the signer (or certificate) names no one; the register does not show the company (unknown or not public); it did not answer; submitted before the check was',
        ),
      reason: z.string(),
    }),
  ])
  .describe(
    "whether the signer is among the company's directors in the public register (API Recherche d'entreprises): names compared without case, accents or hyphens; a legal-person director's own directors count",
  )
  .meta({ id: 'SignerCheck' });
const certificate = z
  .object({
    subject: z.string(),
    names: z.object({ given: z.string().optional(), surname: z.string().optional(), common: z.string().optional() }),
    issuer: z.string(),
    serial: z.string(),
    not_before: timestamp,
    not_after: timestamp,
    sha256: z.string(),
    trusted: z.boolean().describe('its chain leads to a CA the platform trusts (SIGNATURE_TRUST_ANCHORS_FILE)'),
    trust_code: z
      .enum(['trusted', 'no-anchors', 'wrong-use', 'self-signed', 'not-chained'])
      .describe(
        'trusted; no-anchors: the platform trusts no CA; wrong-use: not a certificate for signing; self-signed; not-chained: no chain to a trusted CA (or expired)',
      ),
    trust: z.string().describe('why it is trusted, or not'),
  })
  .describe("the signer's certificate, as the upload found it");
export const signatureEvidence = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('in-app'), via: z.enum(['drawn', 'typed']) }),
    z.object({
      kind: z.literal('digital-signature'),
      certificate: certificate.nullable(),
      names_signer: z.boolean().describe('the certificate names the declared signer'),
      director: signerCheck.describe("whether the person the certificate names is among the company's directors"),
    }),
    z.object({ kind: z.enum(['visible-signature', 'scan']) }),
  ])
  .describe('how the mandate was signed, and for a digital signature whom its certificate names')
  .meta({ id: 'SignatureEvidence' });
