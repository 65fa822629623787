// Peppol participant identifiers as the SML and the Directory take them: scheme `iso6523-actorid-upis`, value
// `ICD:identifier` (a four-digit ICD). Values compare case-insensitively (Peppol Policy for use of Identifiers),
// so they are kept lowercased; `scheme::value` is the full form both services exchange.
export const PEPPOL_PARTICIPANT_SCHEME = 'iso6523-actorid-upis';

export class BadParticipantId extends Error {}

/** The canonical `scheme::value` of a participant; throws BadParticipantId for another scheme or a malformed value. */
export function participantKey(scheme: string, value: string): string {
  if (scheme !== PEPPOL_PARTICIPANT_SCHEME)
    throw new BadParticipantId(`unsupported participant identifier scheme "${scheme}"`);
  const v = value.trim().toLowerCase();
  if (!/^\d{4}:\S+$/.test(v)) throw new BadParticipantId(`participant identifier value must be ICD:code, got "${v}"`);
  return `${scheme}::${v}`;
}

/** `scheme::value`, or a bare value in the Peppol scheme, in its canonical form. */
export function parseParticipant(text: string): string {
  const s = text.trim();
  const sep = s.indexOf('::');
  return sep < 0 ? participantKey(PEPPOL_PARTICIPANT_SCHEME, s) : participantKey(s.slice(0, sep), s.slice(sep + 2));
}
