// Peppol participant identifiers (`iso6523-actorid-upis::ICD:code`), checked against the ICD code list v9.7.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { isSiret, luhnValid } from '../../domain/party/french-ids';

export const PARTICIPANT_SCHEME = 'iso6523-actorid-upis';
/** France's ICD for the electronic addresses of the PPF Annuaire. */
export const FRENCH_ICD = '0225';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PEPPOL_SPEC_DIR = path.join(repoRoot, 'spec', 'peppol');

export interface ParticipantId {
  scheme: string;
  /** `ICD:code`, lowercased: Peppol compares participant values case-insensitively. */
  value: string;
  icd: string;
  code: string;
}

export class InvalidParticipantIdError extends Error {}

/** Parses `scheme::ICD:code` or a bare `ICD:code` (scheme iso6523-actorid-upis). Syntax only, no code list. */
export function parseParticipantId(input: string): ParticipantId {
  const s = input.trim();
  const sep = s.indexOf('::');
  const scheme = sep >= 0 ? s.slice(0, sep).toLowerCase() : PARTICIPANT_SCHEME; // compared case-insensitively too
  const value = (sep >= 0 ? s.slice(sep + 2) : s).toLowerCase();
  if (scheme !== PARTICIPANT_SCHEME)
    throw new InvalidParticipantIdError(`unsupported participant identifier scheme "${scheme}"`);
  const m = /^(\d{4}):(\S+)$/.exec(value);
  if (!m) throw new InvalidParticipantIdError(`participant identifier value must be ICD:code, got "${value}"`);
  return { scheme, value, icd: m[1]!, code: m[2]! };
}

export const formatParticipantId = (p: Pick<ParticipantId, 'scheme' | 'value'>): string => `${p.scheme}::${p.value}`;

/** Normalised full form, e.g. `iso6523-actorid-upis::0225:552032534`. */
export const normaliseParticipantId = (input: string): string => formatParticipantId(parseParticipantId(input));

/** The participant of a directory address (SIREN, SIREN_SIRET, SIREN_SIRET_ROUTAGE or SIREN_SUFFIXE): `0225:<it>`. */
export function frenchParticipantId(address: string): ParticipantId {
  if (!/^\d{9}(_|$)/.test(address))
    throw new InvalidParticipantIdError('a directory address starts with a 9-digit SIREN');
  return checkParticipantId(parseParticipantId(`${FRENCH_ICD}:${address}`));
}

export interface IcdScheme {
  icd: string;
  schemeId: string;
  state: string;
  /** From the code list's "RegEx:" validation rules (a code must match one), when it has any. */
  patterns: RegExp[];
}

let icds: Map<string, IcdScheme> | undefined;

/** The participant identifier schemes of code list v9.7, read once from the code list in spec/peppol. */
export function icdSchemes(): Map<string, IcdScheme> {
  if (icds) return icds;
  const xml = fs.readFileSync(
    path.join(PEPPOL_SPEC_DIR, 'Peppol_Code_Lists_-_Participant_identifier_schemes_v9.7.xml'),
    'utf8',
  );
  const doc = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    isArray: (n) => n === 'participant-identifier-scheme',
  }).parse(xml);
  const list = doc['participant-identifier-schemes']['participant-identifier-scheme'] as Record<string, string>[];
  icds = new Map(
    list.map((e) => [
      e.iso6523!,
      { icd: e.iso6523!, schemeId: e.schemeid!, state: e.state!, patterns: rulePatterns(e['validation-rules']) },
    ]),
  );
  return icds;
}

// Rules are prose ("RegEx: [0-9]{9}([0-9]{5})?\nCheck digits: Luhn", sometimes one RegEx per kind of holder).
// We keep the ones JavaScript reads the same way: `{,n}` (not JS syntax) or a regex that fails to compile is skipped.
function rulePatterns(rules: unknown): RegExp[] {
  if (typeof rules !== 'string') return [];
  return [...rules.matchAll(/RegEx:\s*(\S+)/g)].flatMap(([, re]) => {
    if (re!.includes('{,')) return [];
    try {
      return [new RegExp(`^(?:${re})$`, 'i')];
    } catch {
      return [];
    }
  });
}

// Check digits the code list states in prose, for the schemes we meet: French SIREN/SIRET (Luhn, La Poste's
// exception included) and the Belgian enterprise number (97 − first eight digits mod 97).
const CHECK_DIGITS: Record<string, (code: string) => boolean> = {
  '0002': (c) => luhnValid(c.slice(0, 9)) && (c.length === 9 || isSiret(c)),
  '0009': isSiret,
  '0208': (c) => /^\d{10}$/.test(c) && 97 - (Number(c.slice(0, 8)) % 97) === Number(c.slice(8)),
};

/** Throws unless the ICD is in code list v9.7, not removed, and the code fits the scheme's rule and check digits. */
export function checkParticipantId(p: ParticipantId): ParticipantId {
  const scheme = icdSchemes().get(p.icd);
  if (!scheme)
    throw new InvalidParticipantIdError(`ICD ${p.icd} is not in the Peppol participant identifier scheme code list`);
  if (scheme.state === 'removed')
    throw new InvalidParticipantIdError(`ICD ${p.icd} (${scheme.schemeId}) was removed from the Peppol code list`);
  if (scheme.patterns.length && !scheme.patterns.some((re) => re.test(p.code)))
    throw new InvalidParticipantIdError(`"${p.code}" is not a valid ${scheme.schemeId} identifier`);
  const digits = CHECK_DIGITS[p.icd];
  if (digits && !digits(p.code))
    throw new InvalidParticipantIdError(`"${p.code}" is not a valid ${scheme.schemeId} identifier: wrong check digits`);
  return p;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function base32NoPad(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return bits > 0 ? out + BASE32[(acc << (5 - bits)) & 31] : out;
}

/**
 * The SML's DNS label of a participant: base32 (lowercase, no padding) of SHA-256 of the lowercased value
 * `ICD:code` — the scheme is not hashed, it is the next label (`0088:123abc` → `y7dzfx…tdrq`).
 */
export function smlDnsLabel(value: string): string {
  return base32NoPad(crypto.createHash('sha256').update(value.toLowerCase(), 'utf8').digest());
}

/** Full DNS name the SML publishes (NAPTR `Meta:SMP`), e.g. `<label>.iso6523-actorid-upis.<zone>`. */
export function smlDnsName(p: Pick<ParticipantId, 'scheme' | 'value'>, zone: string): string {
  return `${smlDnsLabel(p.value)}.${p.scheme}.${zone.replace(/^\.+|\.+$/g, '')}`;
}
