// What the reference's descriptions share: media types, limits as written, the example party.
import { REGISTRATION_WORKFLOW_ID } from '../domain/jobs/builtins';
import { STORED_JSON_LIMITS } from '../web/http/bounded-json';

/** The limits of the free-form JSON a route stores, as the descriptions write them. */
export const STORED = {
  values: STORED_JSON_LIMITS.values.toLocaleString('en'),
  bytes: STORED_JSON_LIMITS.bytes.toLocaleString('en'),
};

/** A complete French party: the company, its SIREN, its address, and the mandate's signer (people[0]). */
export const EXAMPLE_PARTY = {
  $schema: 'https://gobl.org/draft-0/org/party',
  name: 'Boulangerie Exemple SAS',
  tax_id: { country: 'FR', code: 'FR27552032534' },
  identities: [{ type: 'SIREN', code: '552032534' }],
  addresses: [{ num: '12', street: 'rue de la Paix', locality: 'Paris', code: '75002', country: 'FR' }],
  emails: [{ addr: 'compta@boulangerie-exemple.fr' }],
  people: [
    {
      name: { given: 'Élodie', surname: 'Martin' },
      role: 'Présidente',
      identities: [{ label: 'CNI', code: 'X4RTBPFW4' }],
    },
  ],
  inboxes: [{ key: 'peppol', scheme: '0225', code: '552032534' }],
};

export const REGISTRATION = REGISTRATION_WORKFLOW_ID;

/** A day `days` ahead of today (YYYY-MM-DD): examples with a start day stay valid whenever the reference is read. */
export const dayAhead = (days: number, now = new Date()): string =>
  new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10);
