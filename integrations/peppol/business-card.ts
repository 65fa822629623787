// The Peppol Directory BusinessCard (peppol-directory-business-card-20180621.xsd) our SMP serves for a party:
// its name, country FR, SIREN and VAT number (schemes named as in the participant identifier code list), and the
// date it was published with us.
import { escapeXml } from './soap';
import { icdSchemes } from './participant-id';

export const BUSINESS_CARD_NS = 'http://www.peppol.eu/schema/pd/businesscard/20180621/';

export interface BusinessCardData {
  participant: { scheme: string; value: string };
  name: string;
  countryCode: string;
  /** Free-text scheme (e.g. FR:SIRENE) → value. */
  identifiers: { scheme: string; value: string }[];
  geographicalInformation?: string;
  /** YYYY-MM-DD */
  registrationDate?: string;
}

/** From a stored GOBL org/party: what the Directory shows publicly. Only public register data, no people. */
export function businessCardOf(
  participant: { scheme: string; value: string },
  party: unknown,
  siren: string,
  registeredAt: string,
): BusinessCardData {
  const p = (party ?? {}) as {
    name?: unknown;
    tax_id?: { country?: unknown; code?: unknown };
    addresses?: { locality?: unknown; code?: unknown }[];
  };
  const schemeId = (icd: string, fallback: string) => icdSchemes().get(icd)?.schemeId ?? fallback;
  const identifiers = [{ scheme: schemeId('0002', 'FR:SIRENE'), value: siren }];
  if (p.tax_id?.country === 'FR' && typeof p.tax_id.code === 'string' && p.tax_id.code) {
    // The VAT number as the party gives it, with or without its country prefix (both are valid French VAT codes).
    identifiers.push({
      scheme: schemeId('9957', 'FR:VAT'),
      value: p.tax_id.code.startsWith('FR') ? p.tax_id.code : `FR${p.tax_id.code}`,
    });
  }
  const addr = p.addresses?.[0];
  const geo = [addr?.code, addr?.locality].filter((s): s is string => typeof s === 'string' && s.length > 0).join(' ');
  return {
    participant,
    name: typeof p.name === 'string' && p.name.trim() ? p.name.trim() : siren, // the XSD wants a non-empty Name
    countryCode: 'FR',
    identifiers,
    ...(geo && { geographicalInformation: geo }),
    registrationDate: registeredAt.slice(0, 10),
  };
}

export function businessCardXml(c: BusinessCardData): string {
  const ids = c.identifiers
    .map((i) => `<Identifier scheme="${escapeXml(i.scheme)}">${escapeXml(i.value)}</Identifier>`)
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<BusinessCard xmlns="${BUSINESS_CARD_NS}">` +
    `<ParticipantIdentifier scheme="${escapeXml(c.participant.scheme)}">${escapeXml(c.participant.value)}</ParticipantIdentifier>` +
    `<BusinessEntity${c.registrationDate ? ` registrationDate="${c.registrationDate}"` : ''}>` +
    `<Name>${escapeXml(c.name)}</Name><CountryCode>${escapeXml(c.countryCode)}</CountryCode>` +
    (c.geographicalInformation
      ? `<GeographicalInformation>${escapeXml(c.geographicalInformation)}</GeographicalInformation>`
      : '') +
    `${ids}</BusinessEntity></BusinessCard>`
  );
}
