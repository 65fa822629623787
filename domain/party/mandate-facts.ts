// What the mandate says of a party: its name, SIREN, first address and signer (DOMAIN.md §2). A change to any of
// these would alter a mandate already issued or signed; a change to anything else would not.
import type { Party } from './gobl-party';

type Loose = Partial<Party> & Record<string, unknown>;

const sirenIn = (p: Loose) => p.identities?.find((i) => i?.type === 'SIREN')?.code;

/** The party's facts printed on (or checked for) its mandate, by the path a caller would name them with. */
export function mandateFacts(party: unknown): Record<string, unknown> {
  const p = (party ?? {}) as Loose;
  const a = p.addresses?.[0];
  const signer = p.people?.[0];
  return {
    name: p.name,
    'identities[SIREN]': sirenIn(p),
    'addresses[0]': a && [a.num, a.street, a.street_extra, a.code, a.locality, a.region, a.country],
    'people[0].name': signer && [signer.name?.given, signer.name?.surname],
    'people[0].role': signer?.role,
    // Not printed, but the signer's identity document is checked against it.
    'people[0].identities[0].code': signer?.identities?.[0]?.code,
  };
}

/** The mandate facts that differ between two versions of a party, by path; empty when its mandate stays the same. */
export function changedMandateFacts(before: unknown, after: unknown): string[] {
  const [b, a] = [mandateFacts(before), mandateFacts(after)];
  return Object.keys(b).filter((k) => JSON.stringify(b[k] ?? null) !== JSON.stringify(a[k] ?? null));
}

/** The SIREN a party document carries, valid or not (a draft stored with `allow_invalid`). */
export const sirenInDocument = (party: unknown): string | undefined => {
  const code = sirenIn((party ?? {}) as Loose);
  return typeof code === 'string' ? code : undefined;
};

/**
 * What the party says now that a signed mandate's facts (as mandateFacts kept them) do not: a registered party
 * whose name, first address or signer changed signs a new mandate. Empty for a mandate whose facts were not kept.
 */
export function factsChangedSince(signed: Record<string, unknown> | undefined, party: unknown): string[] {
  if (!signed) return [];
  const now = mandateFacts(party);
  return Object.keys(now).filter((k) => JSON.stringify(signed[k] ?? null) !== JSON.stringify(now[k] ?? null));
}
