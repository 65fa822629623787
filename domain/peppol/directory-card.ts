// What the Peppol Directory shows of a company (the business card our SMP serves it, integrations/peppol/
// business-card.ts): the company as its mandate in force states it — the name and first address it signed for — and
// its VAT number as it states it now. A company renamed keeps its old name there until its new mandate is approved;
// the Peppol step then has the Directory index it again, when the card's digest differs from the one last indexed.
// A mandate whose facts were not kept (signed before they were, never registered since) leaves the party's own words.
import crypto from 'node:crypto';

type Loose = Record<string, unknown> & { addresses?: unknown };

/** The facts mandateFacts (domain/party/mandate-facts.ts) kept of a first address, in its order. */
const ADDRESS_PARTS = ['num', 'street', 'street_extra', 'code', 'locality', 'region', 'country'] as const;

/** The party as the Directory shows it: its own document, its name and first address as its mandate in force says. */
export function cardParty(party: unknown, signed: Record<string, unknown> | undefined): Loose {
  const p = (party ?? {}) as Loose;
  if (!signed) return p;
  const parts = signed['addresses[0]'];
  const address = Array.isArray(parts)
    ? Object.fromEntries(ADDRESS_PARTS.map((k, i) => [k, parts[i] ?? undefined]).filter(([, v]) => v != null))
    : undefined;
  const rest = Array.isArray(p.addresses) ? p.addresses.slice(1) : [];
  return { ...p, name: signed.name, addresses: address ? [address, ...rest] : rest };
}

/**
 * A digest of what the card shows, as the Peppol step can tell it from its facts (the mandate in force and the VAT
 * number): when it differs from the one the Directory last indexed, the Directory indexes the card again.
 */
export function directoryCardDigest(signed: Record<string, unknown> | undefined, taxId: unknown): string {
  const shown = [signed?.name ?? null, signed?.['addresses[0]'] ?? null, taxId ?? null];
  return crypto.createHash('sha256').update(JSON.stringify(shown)).digest('base64url');
}
