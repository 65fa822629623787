// Migration keys of the SML (PrepareToMigrate / Migrate). The WSDL only says xs:string, but the SML (BDMSL) refuses
// a key unless it has 8 to 24 characters, no blank, and at least two upper-case letters, two lower-case letters, two
// digits and two of MIGRATION_KEY_SPECIALS (its pattern ^(?=.{8,24}$)(?=(.*[specials]){2,})(?=(.*[A-Z]){2})
// (?=(.*[a-z]){2})(?=(.*[0-9]){2})(?=\S+$).*$); other characters may fill the rest.
import { randomInt } from 'node:crypto';

/** The characters the SML counts as special in a migration key. */
export const MIGRATION_KEY_SPECIALS = '@#$%()[]{}*^_-!~|+=';
export const MIGRATION_KEY_MIN_LENGTH = 8;
export const MIGRATION_KEY_MAX_LENGTH = 24;

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const CLASSES = [UPPER, LOWER, DIGITS, MIGRATION_KEY_SPECIALS];

const countOf = (key: string, chars: string) => [...key].filter((c) => chars.includes(c)).length;

/**
 * Whether the SML takes `key` as a migration key. Length counts UTF-16 units (as the SML's Java does); the key is
 * checked as given, not trimmed: blanks around it are refused as the SML refuses them.
 */
export function isValidMigrationKey(key: unknown): key is string {
  if (typeof key !== 'string') return false;
  if (key.length < MIGRATION_KEY_MIN_LENGTH || key.length > MIGRATION_KEY_MAX_LENGTH) return false;
  if (/\s/.test(key)) return false;
  return CLASSES.every((chars) => countOf(key, chars) >= 2);
}

const pick = (chars: string) => chars[randomInt(chars.length)]!;

/**
 * A new random migration key the SML takes (`length` characters, 16 by default): two of each class, the rest drawn
 * from all of them, shuffled, every draw from node:crypto. Only characters the SML names, none XML has to escape.
 */
export function newMigrationKey(length = 16): string {
  if (!Number.isInteger(length) || length < MIGRATION_KEY_MIN_LENGTH || length > MIGRATION_KEY_MAX_LENGTH)
    throw new RangeError(
      `a migration key has ${MIGRATION_KEY_MIN_LENGTH} to ${MIGRATION_KEY_MAX_LENGTH} characters, not ${length}`,
    );
  const all = CLASSES.join('');
  const chars = CLASSES.flatMap((c) => [pick(c), pick(c)]);
  while (chars.length < length) chars.push(pick(all));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1); // Fisher–Yates
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}
