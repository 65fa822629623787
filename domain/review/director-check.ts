// Whether the signer is among the company's legal representatives, as the public register shows them (the API
// Recherche d'entreprises' `dirigeants`, from the RNE, with their roles: representative-roles.ts says which bind the
// company). Names are compared as people write them differently: case, accents, hyphens and spacing aside, the
// surname whole and any one of the given names — or, for a certificate (`strict`), the first given name. A director
// that is a legal person representing the company (a holding as président) is looked up once more, one level: its own
// representatives represent it. A name proves nothing of who signed; it tells the operator, and the decision policy,
// whether the signer claims a role the register confirms.
import type { Logger } from 'pino';
import { RemoteFailure } from '../remote-failure';
import { nameWords } from '../party/legal-forms';
import { isRepresentative } from './representative-roles';

export type Director =
  | { kind: 'person'; surname: string; givenNames: string; role?: string }
  | { kind: 'legal-person'; siren: string; name: string; role?: string };

/** The public register as the checks ask it (a port: integrations/recherche-entreprises/client.ts satisfies it). */
export interface DirectorLookup {
  /** The company's directors; null when the register does not show the company (unknown, or not public). */
  directorsOf(siren: string): Promise<Director[] | null>;
}

/** The director the signer was found as: a person, or a person representing a legal-person director. */
export interface MatchedDirector {
  name: string;
  role?: string;
  via?: { siren: string; name: string; role?: string };
}

/**
 * Why a check did not pass, for a reader in any language (the reason says it in English): the signer is not among
 * the directors listed, or none is listed; the entry has no SIREN, the signer (or a certificate) no name, the register
 * does not show the company (unknown, or not public), or it did not answer; or it was submitted before the check was.
 */
export type SignerCheckCode =
  | 'not-listed'
  | 'not-representative'
  | 'no-directors'
  | 'no-siren'
  | 'no-name'
  | 'not-public'
  | 'no-answer'
  | 'not-checked';

type FailCode = 'not-listed' | 'not-representative' | 'no-directors';

/** A director as the register lists them, for the operator deciding on a `fail`. */
export interface ListedDirector {
  name: string;
  role?: string;
  siren?: string;
}

export type SignerCheck =
  | { result: 'pass'; director: MatchedDirector }
  | {
      result: 'fail';
      code: FailCode;
      reason: string;
      /** `not-representative`: the role the signer is listed in. */
      role?: string;
      listed: ListedDirector[];
    }
  | { result: 'unavailable'; code: Exclude<SignerCheckCode, FailCode>; reason: string };

/** At most this many directors are listed with a `fail`. */
const MAX_LISTED = 20;

/** At most this many legal-person directors are looked up (each one request under the register's rate limit). */
const MAX_LEGAL_PERSONS = 3;

/** A name as compared: its words, capitals without accents, run together ("Jean-Pierre" is "Jean Pierre"). */
const compact = (name: string) => nameWords(name).join('');

/**
 * The given names a director is known by: each listed one, and each two adjacent ones run together (the register
 * writes "Jean Pierre" for "Jean-Pierre" at times).
 */
function givenNamesOf(listed: string): Set<string> {
  const names = listed
    .split(/[,\s]+/)
    .map(compact)
    .filter(Boolean);
  return new Set([...names, ...names.slice(1).map((n, i) => names[i] + n)]);
}

/**
 * Whether the signer is this natural-person director: the same surname, and one given name in common; `strict`, the
 * signer's first given name is the director's first (the son "Pierre" is not his father "Jean Pierre").
 */
export function isSamePerson(
  signer: { given: string; surname: string },
  d: { surname: string; givenNames: string },
  strict = false,
) {
  if (!compact(signer.surname) || compact(signer.surname) !== compact(d.surname)) return false;
  const mine = signer.given
    .split(/[,\s]+/)
    .map(compact)
    .filter(Boolean);
  if (strict) {
    const theirs = d.givenNames
      .split(/[,\s]+/)
      .map(compact)
      .filter(Boolean);
    const firsts = new Set([theirs[0], (theirs[0] ?? '') + (theirs[1] ?? '')]);
    return mine.length > 0 && (firsts.has(mine[0]) || firsts.has(mine.slice(0, 2).join('')));
  }
  const theirs = givenNamesOf(d.givenNames);
  return mine.some((n) => theirs.has(n));
}

const personName = (d: { givenNames: string; surname: string }) => `${d.givenNames} ${d.surname}`.trim();

/** The director `signer` is in `list`, a representative one first. */
function asMatch(
  list: Director[],
  signer: { given: string; surname: string },
  strict: boolean,
): (MatchedDirector & { representative: boolean }) | undefined {
  const found = list.filter(
    (d): d is Extract<Director, { kind: 'person' }> => d.kind === 'person' && isSamePerson(signer, d, strict),
  );
  const d = found.find((x) => isRepresentative(x.role)) ?? found[0];
  return d && { name: personName(d), ...(d.role && { role: d.role }), representative: isRepresentative(d.role) };
}

/**
 * A person as a check names them: given names and surname, or only a whole name (a certificate's common name);
 * `strict`: matched on the first given name (a certificate binding its holder).
 */
export type NamedPerson = ({ given: string; surname: string } | { whole: string }) & { strict?: boolean };

/** The ways a whole name may split into given names and a surname ("Jean de La Fontaine": each cut tried). */
function splits(p: NamedPerson): { given: string; surname: string }[] {
  if (!('whole' in p)) return [{ given: p.given, surname: p.surname }];
  const words = p.whole.trim().split(/\s+/);
  return words
    .slice(1)
    .map((_, i) => ({ given: words.slice(0, i + 1).join(' '), surname: words.slice(i + 1).join(' ') }));
}

function matchIn(list: Director[], person: NamedPerson) {
  for (const candidate of splits(person)) {
    const found = asMatch(list, candidate, person.strict === true);
    if (found) return found;
  }
  return undefined;
}

const listed = (directors: Director[]): ListedDirector[] =>
  directors
    .slice(0, MAX_LISTED)
    .map((d) =>
      d.kind === 'person'
        ? { name: personName(d), ...(d.role && { role: d.role }) }
        : { name: d.name, siren: d.siren, ...(d.role && { role: d.role }) },
    );

/**
 * Each person among the company's directors, or among a legal-person director's (one level): `pass` with the director
 * found, `fail`, or `unavailable` when the register cannot say. One lookup of the company (and of each legal-person
 * director, when needed) serves every person.
 */
export async function checkDirectors(
  deps: { register: DirectorLookup; log: Logger },
  siren: string | null,
  persons: NamedPerson[],
): Promise<SignerCheck[]> {
  const unavailable = (code: 'no-siren' | 'not-public' | 'no-answer', reason: string) =>
    persons.map((): SignerCheck => ({ result: 'unavailable', code, reason }));
  if (!siren) return unavailable('no-siren', 'the entry has no SIREN to look up');
  try {
    const directors = await deps.register.directorsOf(siren);
    if (directors === null)
      return unavailable('not-public', `the public register does not show SIREN ${siren} (unknown, or not public)`);
    // Only a legal person representing the company (a holding as président or gérant) represents it through its own.
    const holdings = directors
      .filter((d): d is Extract<Director, { kind: 'legal-person' }> => d.kind === 'legal-person')
      .filter((d) => isRepresentative(d.role))
      .slice(0, MAX_LEGAL_PERSONS);
    const theirs = new Map<string, Director[] | null>();
    const results: SignerCheck[] = [];
    for (const person of persons) {
      let found = matchIn(directors, person);
      let via: MatchedDirector['via'];
      for (const h of found?.representative ? [] : holdings) {
        if (!theirs.has(h.siren)) theirs.set(h.siren, await deps.register.directorsOf(h.siren));
        const match = matchIn(theirs.get(h.siren) ?? [], person);
        if (match?.representative) {
          found = match;
          via = { siren: h.siren, name: h.name, ...(h.role && { role: h.role }) };
          break;
        }
      }
      if (found?.representative) {
        const { representative: _, ...director } = found;
        results.push({ result: 'pass', director: { ...director, ...(via && { via }) } });
        continue;
      }
      const people = directors.filter((d) => d.kind === 'person').length;
      const fail = (code: FailCode, reason: string, role?: string): SignerCheck => ({
        result: 'fail',
        code,
        reason,
        ...(role && { role }),
        listed: listed(directors),
      });
      results.push(
        found
          ? fail(
              'not-representative',
              `listed as ${found.role ?? 'a director of unknown role'}, which does not represent the company`,
              found.role,
            )
          : directors.length === 0
            ? fail('no-directors', 'the public register lists no director of the company')
            : fail(
                'not-listed',
                `not among the ${people} natural-person director(s)${holdings.length ? ` nor those of its ${holdings.length} legal-person representative(s)` : ''} the public register lists`,
              ),
      );
    }
    return results;
  } catch (err) {
    if (!(err instanceof RemoteFailure)) throw err;
    deps.log.warn({ status: err.status, siren }, 'review: public register lookup failed');
    return unavailable('no-answer', `the public register did not answer: ${err.message}`);
  }
}
