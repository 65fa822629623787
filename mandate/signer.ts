// The signer of the mandate is the first person of the party (DOMAIN.md §2).
import type { Party } from '../party';

export interface Signer {
  given: string;
  surname: string;
  role?: string;
  idNumber: string;
}

type PartyLike = Pick<Party, 'people'>;

const REQUIRED = [
  ['people[0].name.given', (p: PartyLike) => p.people?.[0]?.name.given],
  ['people[0].name.surname', (p: PartyLike) => p.people?.[0]?.name.surname],
  ['people[0].identities[0].code', (p: PartyLike) => p.people?.[0]?.identities?.[0]?.code],
] as const;

/** The required signer fields that are missing, by path; empty when the mandate can be produced. */
export function missingSignerFields(party: PartyLike): string[] {
  return REQUIRED.filter(([, get]) => !get(party)?.trim()).map(([path]) => path);
}

export function signerOf(party: PartyLike): Signer {
  const missing = missingSignerFields(party);
  if (missing.length) throw new Error(`missing signer fields: ${missing.join(', ')}`);
  const person = party.people![0]!;
  return { given: person.name.given!, surname: person.name.surname!, role: person.role, idNumber: person.identities![0]!.code };
}
