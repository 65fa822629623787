// The invoicing addresses a step acts on: those the party states now (domain/party/invoicing-addresses.ts), each
// within what its signed mandate entrusts. One fault code: `address-not-entrusted`, naming what is beyond it.
import { ApplicationFailure } from '@temporalio/activity';
import {
  beyondMandate,
  INVOICING_ADDRESSES_META,
  invoicingAddressesOf,
  type InvoicingAddress,
  signedScopeOf,
  type InvoicingAddresses,
} from '../domain/party/invoicing-addresses';
import type { Queryable } from '../platform/store/db';

/** `signed`: what the signed mandate entrusts, as stored with it; absent for mandates that entrusted every address. */
export async function entrustedAddresses(
  db: Queryable,
  entryId: string,
  siren: string,
  signed: unknown,
): Promise<{ wanted: InvoicingAddress[]; scope: InvoicingAddresses; start?: string }> {
  const wanted = await invoicingAddressesOf(db, entryId, siren);
  const scope = signedScopeOf(signed, siren);
  const beyond = beyondMandate(scope, wanted.addresses);
  if (beyond.length > 0) {
    throw ApplicationFailure.nonRetryable(
      `the signed mandate does not entrust ${beyond.map((a) => a.id).join(', ')} (it lists ${scope.addresses.map((a) => a.id).join(', ')}): run the address update to sign a mandate for the addresses in ${INVOICING_ADDRESSES_META}`,
      'address-not-entrusted',
    );
  }
  return { wanted: wanted.addresses, scope, ...(wanted.start && { start: wanted.start }) };
}
