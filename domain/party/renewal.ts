// A renewal's new mandate, as the signer and the operator see it: the mandate in force it replaces, the addresses it
// adds (as signed, or as the party states them until it is) and what else it states differently (a new legal name, a
// new signer). What the one in force stated is shown as it was, but for an identity document's number.
import type { Queryable } from '../../platform/store/db';
import { signedInvoicingAddresses, supersededByMandate } from '../../platform/store/mandates';
import { beyondMandate, invoicingAddressesOf, signedScopeOf } from './invoicing-addresses';
import { factsChangedSince } from './mandate-facts';

/** The facts a mandate states that a renewal may change (the SIREN never does). */
export const RENEWED_FACTS = [
  'name',
  'addresses[0]',
  'people[0].name',
  'people[0].role',
  'people[0].identities[0].code',
] as const;
export type RenewedFact = (typeof RENEWED_FACTS)[number];

export interface Renewal {
  /** The mandate in force, replaced once this one is approved. */
  mandate_number: string;
  new_addresses: string[];
  /** What this mandate states differently, and what the one in force stated (null: not shown, or not stated). */
  changed: { fact: RenewedFact; was: string | null }[];
}

/** A fact as the mandate in force stated it, for people to read; an identity document's number is not shown. */
function shown(fact: RenewedFact, value: unknown): string | null {
  if (fact === 'people[0].identities[0].code') return null;
  const parts = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v !== '');
  return parts.length > 0 ? parts.join(' ') : null;
}

/** Undefined for a first registration's mandate. */
export async function renewalOf(
  db: Queryable,
  entry: { id: string; siren: string | null; data: unknown },
  mandateNumber: string,
): Promise<Renewal | undefined> {
  const { id: entryId, siren } = entry;
  const old = siren ? await supersededByMandate(db, mandateNumber) : undefined;
  if (!old || !siren) return undefined;
  const signed = await signedInvoicingAddresses(db, entryId);
  const stated = signed ? signedScopeOf(signed, siren) : await invoicingAddressesOf(db, entryId, siren);
  const added = beyondMandate(signedScopeOf(old.invoicingAddresses, siren), stated.addresses).map((a) => a.id);
  // The party states what the new mandate does: a change after its signature is refused (party-change.ts).
  const changed = factsChangedSince(old.facts, entry.data)
    .filter((f): f is RenewedFact => (RENEWED_FACTS as readonly string[]).includes(f))
    .map((fact) => ({ fact, was: shown(fact, old.facts?.[fact]) }));
  return { mandate_number: old.mandateNumber, new_addresses: added, changed };
}
