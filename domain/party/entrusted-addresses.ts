// The invoicing addresses a step acts on: those the party states now (invoicing-addresses.ts), each within what its
// signed mandate entrusts. One fault code: `address-not-entrusted`, naming what is beyond it.
import { StepRefused } from '../errors';
import {
  beyondMandate,
  INVOICING_ADDRESSES_META,
  invoicingAddressesIn,
  type InvoicingAddress,
  signedScopeOf,
  type InvoicingAddresses,
} from './invoicing-addresses';

/** The addresses a step acts on, and the scope of the mandate that entrusts them. */
type Entrusted = { wanted: InvoicingAddress[]; scope: InvoicingAddresses; start?: string };

/**
 * From the `fr-invoicing-addresses` meta the step read with its start (entry-facts.ts `metas`). `signed`: what the
 * signed mandate entrusts, as stored with it; absent for mandates that entrusted every address.
 */
export function entrustedAddressesIn(metas: Record<string, unknown>, siren: string, signed: unknown): Entrusted {
  const meta = INVOICING_ADDRESSES_META in metas ? { value: metas[INVOICING_ADDRESSES_META] ?? undefined } : undefined;
  const wanted = invoicingAddressesIn(siren, meta);
  const scope = signedScopeOf(signed, siren);
  const beyond = beyondMandate(scope, wanted.addresses);
  if (beyond.length > 0) {
    throw new StepRefused(
      'address-not-entrusted',
      `the signed mandate does not entrust ${beyond.map((a) => a.id).join(', ')} (it lists ${scope.addresses.map((a) => a.id).join(', ')}): run the address update to sign a mandate for the addresses in ${INVOICING_ADDRESSES_META}`,
    );
  }
  return { wanted: wanted.addresses, scope, ...(wanted.start && { start: wanted.start }) };
}
