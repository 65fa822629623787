// The signer among the company's directors: names as people write them (case, accents, hyphens, any given name),
// a legal-person director's own directors one level down, and `unavailable` when the register cannot say.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { checkDirectors, isSamePerson, type Director } from '../../../domain/review/director-check';
import { isRepresentative } from '../../../domain/review/representative-roles';
import { RemoteFailure } from '../../../domain/remote-failure';

const log = pino({ level: 'silent' });
const person = (givenNames: string, surname: string, role = 'Président'): Director => ({
  kind: 'person',
  givenNames,
  surname,
  role,
});

function register(companies: Record<string, Director[]>) {
  const asked: string[] = [];
  return {
    asked,
    register: {
      directorsOf: async (siren: string) => {
        asked.push(siren);
        return companies[siren] ?? null;
      },
    },
  };
}

describe('names compared as people write them', () => {
  it.each([
    [{ given: 'élodie', surname: 'MARTIN' }, 'Élodie', 'Martin'],
    [{ given: 'Jean-Pierre', surname: 'Lefèvre' }, 'Jean Pierre, Marie', 'LEFEVRE'],
    [{ given: 'Marie', surname: 'Lefèvre' }, 'Jean Pierre, Marie', 'LEFEVRE'],
    [{ given: 'Anne', surname: 'Dupont-Moretti' }, 'Anne', 'DUPONT MORETTI'],
    [{ given: 'Søren', surname: 'Kierkegaard' }, 'SØREN', 'KIERKEGAARD'],
  ])('%o is the director %s %s', (signer, given, surname) => {
    expect(isSamePerson(signer, { givenNames: given, surname })).toBe(true);
  });

  it.each([
    [{ given: 'Pierre', surname: 'Lefèvre' }, 'Jean-Pierre', 'LEFEVRE'], // part of a compound name is not the name
    [{ given: 'Élodie', surname: 'Martin' }, 'Élodie', 'MARTINEZ'],
    [{ given: 'Paul', surname: 'Martin' }, 'Élodie', 'MARTIN'],
    [{ given: 'Élodie', surname: '' }, 'Élodie', ''],
  ])('%o is not the director %s %s', (signer, given, surname) => {
    expect(isSamePerson(signer, { givenNames: given, surname })).toBe(false);
  });
});

describe('the check', () => {
  it('passes for a listed director, naming them and their role', async () => {
    const r = register({ '552032534': [person('Élodie, Anne', 'MARTIN', 'Directrice générale')] });
    const [c] = await checkDirectors({ ...r, log }, '552032534', [{ given: 'Elodie', surname: 'Martin' }]);
    expect(c).toEqual({ result: 'pass', director: { name: 'Élodie, Anne MARTIN', role: 'Directrice générale' } });
  });

  it("finds the signer among a holding's directors, one level down, the holding looked up once for every person", async () => {
    const r = register({
      '111111111': [
        person('Paul', 'DURAND', 'Directeur général'),
        { kind: 'legal-person', siren: '222222222', name: 'HOLDING EXEMPLE', role: 'Président' },
      ],
      '222222222': [person('Élodie', 'MARTIN', 'Gérante'), { kind: 'legal-person', siren: '333333333', name: 'X' }],
      '333333333': [person('Zoé', 'DEEP')],
    });
    const [signer, deeper] = await checkDirectors({ ...r, log }, '111111111', [
      { given: 'Élodie', surname: 'Martin' },
      { given: 'Zoé', surname: 'Deep' },
    ]);
    expect(signer).toEqual({
      result: 'pass',
      director: {
        name: 'Élodie MARTIN',
        role: 'Gérante',
        via: { siren: '222222222', name: 'HOLDING EXEMPLE', role: 'Président' },
      },
    });
    expect(deeper).toMatchObject({ result: 'fail' }); // two levels down is not looked up
    expect(r.asked).toEqual(['111111111', '222222222']);
  });

  it('a whole name (a certificate without given name and surname) is tried at each cut', async () => {
    const r = register({ '111111111': [person('Jean', 'DE LA FONTAINE')] });
    const [c] = await checkDirectors({ ...r, log }, '111111111', [{ whole: 'Jean de La Fontaine' }]);
    expect(c?.result).toBe('pass');
  });

  it('fails, saying how many directors were compared and whom the register lists, when the signer is none of them', async () => {
    const r = register({ '111111111': [person('Paul', 'DURAND'), person('Zoé', 'ROUX', 'Directrice générale')] });
    const [c] = await checkDirectors({ ...r, log }, '111111111', [{ given: 'Élodie', surname: 'Martin' }]);
    expect(c).toEqual({
      result: 'fail',
      code: 'not-listed',
      reason: expect.stringContaining('2 natural-person director(s)'),
      listed: [
        { name: 'Paul DURAND', role: 'Président' },
        { name: 'Zoé ROUX', role: 'Directrice générale' },
      ],
    });
  });

  it('a statutory auditor, or a person of a firm that audits it, does not represent the company', async () => {
    const r = register({
      '111111111': [
        person('Paul', 'DURAND'),
        person('Élodie', 'MARTIN', 'Commissaire aux comptes suppléant'),
        { kind: 'legal-person', siren: '444444444', name: 'CABINET AUDIT', role: 'Commissaire aux comptes titulaire' },
      ],
      '444444444': [person('Zoé', 'ROUX', 'Président')],
    });
    const [auditor, firm] = await checkDirectors({ ...r, log }, '111111111', [
      { given: 'Élodie', surname: 'Martin' },
      { given: 'Zoé', surname: 'Roux' },
    ]);
    expect(auditor).toMatchObject({
      result: 'fail',
      code: 'not-representative',
      role: 'Commissaire aux comptes suppléant',
    });
    expect(firm).toMatchObject({ result: 'fail', code: 'not-listed' });
    expect(r.asked).toEqual(['111111111']); // the auditing firm is not looked up
  });

  it("a certificate's holder is matched on the first given name: the son is not his father", async () => {
    const r = register({ '111111111': [person('Jean Pierre', 'DUMAS')] });
    const [declared, certified] = await checkDirectors({ ...r, log }, '111111111', [
      { given: 'Pierre', surname: 'Dumas' },
      { given: 'Pierre', surname: 'Dumas', strict: true },
    ]);
    expect(declared?.result).toBe('pass'); // a name in common: the operator is told
    expect(certified?.result).toBe('fail'); // binding: it must be him
    const [jeanPierre] = await checkDirectors({ ...r, log }, '111111111', [
      { given: 'Jean-Pierre', surname: 'Dumas', strict: true },
    ]);
    expect(jeanPierre?.result).toBe('pass');
  });

  it('is unavailable for a company the register does not show, or when it does not answer', async () => {
    const absent = await checkDirectors({ ...register({}), log }, '111111111', [{ given: 'A', surname: 'B' }]);
    expect(absent[0]).toEqual({
      result: 'unavailable',
      code: 'not-public',
      reason: expect.stringContaining('not public'),
    });
    const down = {
      directorsOf: async () => {
        throw new RemoteFailure('public-register', 'API Recherche d’entreprises 429: trop de requêtes', true, 429);
      },
    };
    const [c] = await checkDirectors({ register: down, log }, '111111111', [{ given: 'A', surname: 'B' }]);
    expect(c).toEqual({ result: 'unavailable', code: 'no-answer', reason: expect.stringContaining('429') });
  });
});

describe('the roles that represent a company', () => {
  it.each([
    'Président',
    'Présidente de SAS',
    'Directeur général',
    'Directeur Général Délégué',
    'Directrice générale',
    'Présidente directrice générale',
    'Gérant',
    'Co-gérante',
    'Président-directeur général',
    'Président du directoire',
    'Liquidateur',
  ])('%s represents it', (role) => expect(isRepresentative(role)).toBe(true));
  it.each([
    'Commissaire aux comptes titulaire',
    'Commissaire aux comptes suppléant',
    'Administrateur',
    "Président du conseil d'administration",
    'Président du conseil de surveillance',
    'Membre du conseil de surveillance',
    'Vice-président',
    'Associé',
    undefined,
  ])('%s does not', (role) => expect(isRepresentative(role)).toBe(false));
});
