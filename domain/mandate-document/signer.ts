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
  // The capacity in which they sign for the company (the form's « en qualité de »).
  ['people[0].role', (p: PartyLike) => p.people?.[0]?.role],
  ['people[0].identities[0].code', (p: PartyLike) => p.people?.[0]?.identities?.[0]?.code],
] as const;

/** The signer fields a mandate is issued to the signer with that are missing, by path; empty when it can be. */
export function missingSignerFields(party: PartyLike): string[] {
  return REQUIRED.filter(([, get]) => !get(party)?.trim()).map(([path]) => path);
}

/** The signer as the mandate names them; its role may be absent here (an older mandate's), printed "not given". */
export function signerOf(party: PartyLike): Signer {
  const missing = missingSignerFields(party).filter((path) => path !== 'people[0].role');
  if (missing.length) throw new Error(`missing signer fields: ${missing.join(', ')}`);
  const person = party.people![0]!;
  return {
    given: person.name.given!,
    surname: person.name.surname!,
    role: person.role,
    idNumber: person.identities![0]!.code,
  };
}
