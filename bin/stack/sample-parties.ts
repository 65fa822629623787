// Real French companies' public identifiers (from the public SIRENE register) and a GOBL party around them.
import crypto from 'node:crypto';
import { frenchVatKey } from '../../domain/party/french-ids';

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
