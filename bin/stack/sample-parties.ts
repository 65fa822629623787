// Real French companies' public identifiers (from the public SIRENE register) and a GOBL party around them.
import crypto from 'node:crypto';
import { frenchVatKey, isSiret } from '../../domain/party/french-ids';

// SIREN of public, well-known companies: valid Luhn numbers used in the wild.
export const REAL_SIRENS = {
  airFrance: '420495178',
  danone: '552032534',
  michelin: '855200887',
  laPoste: '356000000',
};

/** A deterministic valid SIREN (Luhn) other than the real ones, for tests needing many distinct parties. */
export function makeSiren(seed = crypto.randomInt(0, 99_999_999)): string {
  const body = String(seed).padStart(8, '0');
  for (let d = 0; d <= 9; d++) {
    const candidate = body + d;
    let sum = 0;
    for (let i = 0; i < 9; i++) {
      let n = Number(candidate[8 - i]);
      if (i % 2 === 1) {
        n *= 2;
        if (n > 9) n -= 9;
      }
      sum += n;
    }
    if (sum % 10 === 0) return candidate;
  }
  throw new Error('unreachable');
}

export function party(siren: string = makeSiren(), overrides: Record<string, unknown> = {}) {
  return {
    $schema: 'https://gobl.org/draft-0/org/party' as const,
    name: 'Boulangerie Exemple SAS',
    tax_id: { country: 'FR', code: `${frenchVatKey(siren)}${siren}` },
    identities: [{ type: 'SIREN', code: siren, ext: { 'iso-scheme-id': '0002' } }],
    addresses: [{ street: '12 rue de la Paix', locality: 'Paris', code: '75002', country: 'FR' }],
    emails: [{ addr: 'compta@boulangerie-exemple.fr' }],
    people: [
      {
        name: { given: 'Élodie', surname: "N'Guessan-Dupré" },
        role: 'Présidente',
        identities: [{ label: 'CNI', code: 'X4RTBPFW4' }],
      },
    ],
    inboxes: [{ key: 'peppol', scheme: '0225', code: siren }],
    ...overrides,
  };
}

/** A valid SIRET of the SIREN: the SIREN, a 4-digit NIC (the establishment's number) and its check digit. */
export function siretOf(siren: string, nic = '0001'): string {
  if (!/^\d{9}$/.test(siren) || !/^\d{4}$/.test(nic)) throw new Error(`siretOf: a 9-digit SIREN and a 4-digit NIC`);
  return [...'0123456789'].map((d) => `${siren}${nic}${d}`).find(isSiret)!; // one digit in ten passes (Luhn)
}

/** A party's invoicing addresses (meta fr-invoicing-addresses) and what registering them creates. */
export interface SampleAddresses {
  /** The meta key's value, as an integrator PUTs it. */
  value: { addresses: Record<string, unknown>[] };
  /** Each address's directory identifier (identifiantAdressage), in the order stated. */
  ids: string[];
  /** The routing codes the directory must hold for them. */
  routingCodes: { siret: string; id: string }[];
}

/**
 * Every level of invoicing address for one SIREN (DSE §3.5.3): the SIREN, an establishment (SIRET), a service under
 * it (SIRET + routing code), and a suffix.
 */
export function everyAddressLevel(siren: string, nic = '0001'): SampleAddresses {
  const siret = siretOf(siren, nic);
  return {
    value: {
      addresses: [{}, { siret }, { siret, routing_code: { id: 'ACHATS', label: 'Service achats' } }, { suffix: 'EU' }],
    },
    ids: [siren, `${siren}_${siret}`, `${siren}_${siret}_ACHATS`, `${siren}_EU`],
    routingCodes: [{ siret, id: 'ACHATS' }],
  };
}
