// An address update's new mandate, as the signer and the operator see it: the mandate in force it replaces, and the
// addresses it adds (as signed, or as the party states them until it is).
import type { Queryable } from '../../platform/store/db';
import { signedInvoicingAddresses, supersededByMandate } from '../../platform/store/mandates';
import { beyondMandate, invoicingAddressesOf, signedScopeOf } from './invoicing-addresses';

export interface Renewal {
  /** The mandate in force, replaced once this one is approved. */
  mandate_number: string;
  new_addresses: string[];
}

/** Undefined for a first registration's mandate. */
export async function renewalOf(
  db: Queryable,
  entryId: string,
  siren: string | null,
  mandateNumber: string,
): Promise<Renewal | undefined> {
  const old = siren ? await supersededByMandate(db, mandateNumber) : undefined;
  if (!old || !siren) return undefined;
  const signed = await signedInvoicingAddresses(db, entryId);
  const stated = signed ? signedScopeOf(signed, siren) : await invoicingAddressesOf(db, entryId, siren);
  const added = beyondMandate(signedScopeOf(old.invoicingAddresses, siren), stated.addresses).map((a) => a.id);
  return { mandate_number: old.mandateNumber, new_addresses: added };
}
