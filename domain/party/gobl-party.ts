// The GOBL `org/party` document, as a silo entry of schema `org/party` holds it (DOMAIN.md §2).
// Objects are strict: an unknown member is reported rather than silently dropped.
import { z } from 'zod';
import { checkFrenchVat, isSiren, isSiret } from './french-ids';

export const PARTY_SCHEMA_URL = 'https://gobl.org/draft-0/org/party';

/**
 * One line of text as it reaches the mandate, the directory, the business card and the SML: no control characters
 * (not valid in XML 1.0, nor on a printed line) and no invisible formatting (a right-to-left override would show
 * another name than the one stored).
 */
const text = (max = 1000) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}\p{Cf}]*$/u, 'no control or invisible formatting characters');
const ext = z
  .record(
    z.string().max(64),
    z
      .string()
      .max(255)
      .regex(/^[^\p{Cc}]*$/u, 'no control characters'),
  )
  .refine((e) => Object.keys(e).length <= 50, 'at most 50 extension keys');

/** The largest party document stored: a company's record is a few kilobytes. */
export const MAX_PARTY_BYTES = 64 * 1024;

const identity = z.strictObject({
  uuid: z.uuid().optional(),
  label: text(255).optional(),
  type: text(64).optional(),
  key: text(64).optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .optional(),
  code: text(255),
  description: text().optional(),
  ext: ext.optional(),
});

const email = z.strictObject({ uuid: z.uuid().optional(), label: text(255).optional(), addr: z.email() });
const telephone = z.strictObject({ uuid: z.uuid().optional(), label: text(255).optional(), num: text(64) });

const address = z.strictObject({
  uuid: z.uuid().optional(),
  label: text(255).optional(),
  po_box: text(64).optional(),
  num: text(64).optional(),
  floor: text(64).optional(),
  block: text(64).optional(),
  door: text(64).optional(),
  street: text(255).optional(),
  street_extra: text(255).optional(),
  locality: text(255).optional(),
  region: text(255).optional(),
  state: text(255).optional(),
  code: text(32).optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .optional(),
});

const personName = z.strictObject({
  uuid: z.uuid().optional(),
  alias: text(255).optional(),
  prefix: text(64).optional(),
  given: text(255).optional(),
  middle: text(255).optional(),
  surname: text(255).optional(),
  surname2: text(255).optional(),
  suffix: text(64).optional(),
});

const person = z.strictObject({
  uuid: z.uuid().optional(),
  label: text(255).optional(),
  name: personName.describe('the signer (people[0]) needs `given` and `surname`: printed on the mandate'),
  role: text(255).optional().describe("the signer's role in the company (Présidente, Gérant…): printed on the mandate"),
  emails: z.array(email).max(20).optional(),
  telephones: z.array(telephone).max(20).optional(),
  identities: z
    .array(identity)
    .max(20)
    .optional()
    .describe(
      "the signer's identity document first: its number in `code` (checked against the document uploaded; never printed on the mandate), its kind in `label` (CNI, passport)",
    ),
  addresses: z.array(address).max(20).optional(),
});

const inbox = z.strictObject({
  uuid: z.uuid().optional(),
  label: text(255).optional(),
  key: text(64).optional(),
  role: text(64).optional(),
  scheme: z
    .string()
    .regex(/^\d{4}$/, 'an ISO 6523 ICD: four digits')
    .optional(),
  code: text(255).optional(),
  url: z.url().optional(),
  email: z.email().optional(),
});

const taxId = z.strictObject({
  country: z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166 alpha-2 country code'),
  code: z
    .string()
    .max(32)
    .regex(/^[^\p{Cc}\p{Cf}]*$/u, 'no control or invisible formatting characters')
    .optional(),
  zone: text(32).optional(),
});

const partyObject = z.strictObject({
  $schema: z.literal(PARTY_SCHEMA_URL).optional(),
  $regime: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .optional(),
  uuid: z.uuid().optional(),
  label: text(255).optional(),
  name: text(255).describe("the company's legal name: printed on the mandate"),
  alias: text(255).optional(),
  tax_id: taxId.describe('its French VAT number: country FR, code FR + key + SIREN (e.g. FR27552032534)'),
  identities: z
    .array(identity)
    .max(20)
    .optional()
    .describe(
      'exactly one of type SIREN (9 digits, Luhn), equal to the SIREN in the VAT number; SIRETs (type SIRET) optional',
    ),
  people: z
    .array(person)
    .max(20)
    .optional()
    .describe(
      'people[0] signs the mandate: its name, role and identity document. Missing fields can be completed by the signer in the wizard, or here with PATCH',
    ),
  inboxes: z.array(inbox).max(20).optional(),
  addresses: z
    .array(address)
    .max(20)
    .optional()
    .describe('addresses[0], the registered office, is printed on the mandate ("Fait à <locality>")'),
  emails: z.array(email).max(20).optional(),
  websites: z
    .array(z.strictObject({ uuid: z.uuid().optional(), label: text(255).optional(), url: z.url() }))
    .max(20)
    .optional(),
  telephones: z.array(telephone).max(20).optional(),
  ext: ext.optional(),
});

/** A French party: VAT key consistent with the SIREN, and the SIREN identity equal to the VAT's SIREN. */
export const frenchParty = partyObject.superRefine((party, ctx) => {
  if (party.tax_id.country !== 'FR') {
    ctx.addIssue({
      code: 'custom',
      path: ['tax_id', 'country'],
      message: 'only French parties (FR) can be registered',
    });
    return;
  }
  const vat = checkFrenchVat(party.tax_id.code ?? '');
  if (!vat.ok)
    ctx.addIssue({ code: 'custom', path: ['tax_id', 'code'], message: `invalid French VAT code: ${vat.reason}` });

  const sirens = (party.identities ?? []).map((id, i) => ({ id, i })).filter(({ id }) => id.type === 'SIREN');
  if (sirens.length !== 1) {
    ctx.addIssue({ code: 'custom', path: ['identities'], message: 'exactly one identity of type SIREN is required' });
  }
  for (const { id, i } of sirens) {
    if (!isSiren(id.code)) {
      ctx.addIssue({
        code: 'custom',
        path: ['identities', i, 'code'],
        message: `${id.code} is not a valid SIREN (9 digits, Luhn)`,
      });
    } else if (vat.ok && id.code !== vat.siren) {
      ctx.addIssue({
        code: 'custom',
        path: ['identities', i, 'code'],
        message: `SIREN ${id.code} differs from the SIREN in the VAT code (${vat.siren})`,
      });
    }
  }
  (party.identities ?? []).forEach((id, i) => {
    if (id.type === 'SIRET' && !isSiret(id.code)) {
      ctx.addIssue({ code: 'custom', path: ['identities', i, 'code'], message: `${id.code} is not a valid SIRET` });
    }
  });
});

export type Party = z.infer<typeof partyObject>;

/** The document as the API reference shows it (the checks across fields, VAT against SIREN, are in its descriptions). */
export const partyDocument = partyObject.meta({
  id: 'Party',
  description: 'A French company as a GOBL org/party document (https://gobl.org/draft-0/org/party)',
});

/** The SIREN of a party that passed `frenchParty`. */
export function sirenOf(party: Party): string {
  const id = party.identities?.find((i) => i.type === 'SIREN');
  if (!id) throw new Error('party has no SIREN identity');
  return id.code;
}
