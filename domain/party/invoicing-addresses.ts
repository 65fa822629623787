// The invoicing addresses a company entrusts to us (DSE v3.2 §3.5.3): the directory receives invoices at four levels —
// SIREN; SIREN + SIRET (an establishment); SIREN + SIRET + routing code (a service, a GLN or ODETTE code, an internal
// code); SIREN + suffix. The integrator states them in the meta key `fr-invoicing-addresses`; without it, the SIREN
// address alone. Each becomes one directory line and one Peppol participant `0225:<its identifier>`, so an address
// must suit both: the PPF's formats, and the 0225 scheme's characters (letters, digits, - and _).
import { z } from 'zod';
import type { Queryable } from '../../platform/store/db';
import { getMeta } from '../../platform/store/entry-meta';
import { DomainError } from '../errors';
import { isSiret } from './french-ids';

export const INVOICING_ADDRESSES_META = 'fr-invoicing-addresses';

/** What the mandate entrusts: the addresses listed, or every address of the SIREN (the model form's wildcard). */
export const ENTRUST_SCOPES = ['listed', 'all'] as const;
export type EntrustScope = (typeof ENTRUST_SCOPES)[number];

// The PPF's patterns (identifiantRoutage, suffixeAdressage), narrowed to the characters a 0225 participant allows.
const PEPPOL_SAFE = /^[A-Za-z0-9_-]+$/;
const ppfCode = (what: string, ppf: RegExp) =>
  z
    .string()
    .min(1, `a ${what} is 1 to 100 characters`)
    .max(100, `a ${what} is 1 to 100 characters`)
    // Once the directory's rule is broken, the narrower Peppol one is not named as well.
    .regex(ppf, {
      message: `a ${what} holds only letters, digits and the characters the directory allows`,
      abort: true,
    })
    .regex(
      PEPPOL_SAFE,
      `a ${what} may hold only letters, digits, - and _: the directory accepts more, but a Peppol participant (scheme 0225) does not`,
    );

const routingCode = z.strictObject({
  id: ppfCode('routing code', /^[-_/@a-zA-Z0-9]{1,100}$/).describe('identifiantRoutage'),
  label: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[^\p{Cc}\p{Cf}]*$/u, 'no control or invisible formatting characters')
    .describe('libelleCodeRoutage: the service or department, as buyers see it in the directory'),
  nature: z.enum(['Privé', 'Public']).default('Privé').describe('natureEtablissement'),
  state: z.enum(['A', 'F']).default('A').describe('etatAdministratif: A (active) or F (closed)'),
  type: z
    .string()
    .regex(/^\d{4}$/, 'an ISO 6523 ICD, four digits (0224 GLN, 0088 ODETTE…)')
    .optional()
    .describe('typeIdentifiantRoutage'),
  commitment_required: z
    .boolean()
    .optional()
    .describe('gestionEngagementJuridique: whether invoices must carry a legal commitment number'),
});

const invoicingAddress = z.strictObject({
  siret: z.string().optional().describe('an establishment of the SIREN (14 digits)'),
  routing_code: routingCode.optional().describe('a service under the SIRET, created in the directory if need be'),
  suffix: ppfCode('suffix', /^[-_.@a-zA-Z0-9]{1,100}$/)
    .optional()
    .describe('an address not tied to an establishment (never a SIRET)'),
});

export const invoicingAddressesValue = z.strictObject({
  entrust: z
    .enum(ENTRUST_SCOPES)
    .default('all')
    .describe(
      "what the mandate entrusts: every address of the SIREN (the default, the model form's wildcard), or only those listed",
    ),
  addresses: z.array(invoicingAddress).min(1).max(100),
  start: z.iso
    .date('a day, YYYY-MM-DD')
    .optional()
    .describe(
      'the day the addresses take effect (today by default): the directory lines start then, a take-over switches then, and Peppol publication waits for it',
    ),
});

export type RoutingCodeData = z.infer<typeof routingCode>;

/** One address, with its directory identifier (SIREN, SIREN_SIRET, SIREN_SIRET_ROUTAGE or SIREN_SUFFIXE). */
export interface InvoicingAddress {
  id: string;
  siren: string;
  siret?: string;
  routingCode?: RoutingCodeData;
  suffix?: string;
}

export interface InvoicingAddresses {
  entrust: EntrustScope;
  addresses: InvoicingAddress[];
  /** YYYY-MM-DD: the day they take effect; today when absent or past. */
  start?: string;
}

/** How far ahead a start may be set: a registration waits for it, and a mandate is not signed for years ahead. */
export const MAX_START_DAYS = 366;

/** A start day as a caller sets it: today at the earliest (UTC, as the directory counts), a year ahead at the latest. */
function startDayFrom(now: Date) {
  const today = now.toISOString().slice(0, 10);
  const latest = new Date(now.getTime() + MAX_START_DAYS * 86_400_000).toISOString().slice(0, 10);
  return z.iso
    .date('a day, YYYY-MM-DD')
    .refine((d) => d >= today && d <= latest, `a day from ${today} to ${latest}`)
    .optional();
}

/** The day addresses stated as `a` take effect: their start, or `today` when it is past or absent. */
export const effectiveDay = (a: Pick<InvoicingAddresses, 'start'>, today: string): string =>
  a.start && a.start > today ? a.start : today;

export const addressIdOf = (a: Omit<InvoicingAddress, 'id'>): string =>
  [a.siren, a.siret, a.siret && a.routingCode?.id, a.suffix].filter(Boolean).join('_');

/** What a company that states nothing wants: its SIREN address registered, under a mandate for all its addresses. */
export const defaultInvoicingAddresses = (siren: string): InvoicingAddresses => ({
  entrust: 'all',
  addresses: [{ id: siren, siren }],
});

/** The addresses an entry's meta states now (already checked when written), or the default. */
export async function invoicingAddressesOf(db: Queryable, entryId: string, siren: string): Promise<InvoicingAddresses> {
  const meta = await getMeta(db, entryId, INVOICING_ADDRESSES_META);
  return invoicingAddressesIn(siren, meta && { value: meta.value });
}

/** The same, from the meta row read elsewhere (`meta`: its value; undefined when the entry has no such meta). */
export function invoicingAddressesIn(siren: string, meta: { value: unknown } | undefined): InvoicingAddresses {
  return meta ? parseInvoicingAddresses(siren, meta.value) : defaultInvoicingAddresses(siren);
}

/**
 * Reads a `fr-invoicing-addresses` value for a SIREN, refusing with every fault named: a SIRET of another SIREN or
 * failing its check, a routing code without a SIRET, a suffix beside a SIRET or shaped like one, an address twice,
 * and, as a caller writes it (`now` given), a start day outside the range a registration may wait for.
 */
export function parseInvoicingAddresses(
  siren: string,
  value: unknown,
  o: { at?: string; now?: Date } = {},
): InvoicingAddresses {
  // Each address checked on its own (so one bad address does not hide another's faults), then the list for repeats.
  const address = invoicingAddress.superRefine((a, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (a.siret !== undefined) {
      if (!isSiret(a.siret)) issue('siret', `${a.siret} is not a valid SIRET (14 digits, Luhn)`);
      else if (!a.siret.startsWith(siren)) issue('siret', `SIRET ${a.siret} is not an establishment of SIREN ${siren}`);
    }
    if (a.routing_code && a.siret === undefined)
      issue('routing_code', 'a routing code hangs on a SIRET: give the siret');
    if (a.suffix !== undefined && a.siret !== undefined)
      issue('suffix', 'an address has a SIRET or a suffix, not both');
    if (a.suffix !== undefined && /^\d{14}$/.test(a.suffix))
      issue('suffix', 'a suffix is never 14 digits, the shape of a SIRET: an establishment is given as siret');
  });
  const checked = invoicingAddressesValue
    .extend({
      addresses: z.array(address).min(1).max(100),
      start: o.now ? startDayFrom(o.now) : invoicingAddressesValue.shape.start,
    })
    .superRefine((v, ctx) => {
      const seen = new Map<string, number>();
      v.addresses.forEach((a, i) => {
        const id = addressIdOf({ siren, siret: a.siret, routingCode: a.routing_code, suffix: a.suffix }).toLowerCase();
        const first = seen.get(id);
        if (first === undefined) seen.set(id, i);
        else
          ctx.addIssue({
            code: 'custom',
            path: ['addresses', i],
            message: `the same address as addresses[${first}] (Peppol ignores case)`,
          });
      });
    });
  const parsed = checked.safeParse(value);
  if (!parsed.success) {
    throw new DomainError('invalid-request', `invalid ${INVOICING_ADDRESSES_META}`, {
      invalid: { error: parsed.error, at: o.at ?? 'body.value' },
    });
  }
  return {
    entrust: parsed.data.entrust,
    ...(parsed.data.start && { start: parsed.data.start }),
    addresses: parsed.data.addresses.map((a) => {
      const address = {
        siren,
        ...(a.siret !== undefined && { siret: a.siret }),
        ...(a.routing_code && { routingCode: a.routing_code }),
        ...(a.suffix !== undefined && { suffix: a.suffix }),
      };
      return { id: addressIdOf(address), ...address };
    }),
  };
}

/** The scope a signed mandate entrusts, as stored with it (the domain's form, written with its signature). */
const signedScope = z.object({
  entrust: z.enum(ENTRUST_SCOPES),
  start: z.string().optional(),
  addresses: z
    .array(
      z.object({
        id: z.string(),
        siren: z.string(),
        siret: z.string().optional(),
        routingCode: routingCode.optional(),
        suffix: z.string().optional(),
      }),
    )
    .min(1),
});

/** What a signed mandate entrusts: `stored` as kept with it, or every address for mandates signed before scopes were. */
export function signedScopeOf(stored: unknown, siren: string): InvoicingAddresses {
  if (stored === undefined || stored === null) return defaultInvoicingAddresses(siren);
  const parsed = signedScope.safeParse(stored);
  // Written by us when the mandate was submitted: unreadable means a bug or a tampered row, never "everything".
  if (!parsed.success) throw new Error(`the signed mandate's scope of SIREN ${siren} is unreadable`);
  return parsed.data as InvoicingAddresses;
}

/** The addresses of `wanted` a mandate entrusting `signed` does not cover. */
export const beyondMandate = (signed: InvoicingAddresses, wanted: InvoicingAddress[]): InvoicingAddress[] =>
  wanted.filter((a) => !entrusts(signed, a));

/** Whether a mandate entrusting `signed` covers `address`. */
export const entrusts = (signed: InvoicingAddresses, address: InvoicingAddress): boolean =>
  signed.entrust === 'all'
    ? address.siren === signed.addresses[0]?.siren
    : signed.addresses.some((a) => a.id === address.id);
