// What the admin routes accept, checked field by field: a bad input is refused (400) saying which field and why. A line
// as another platform writes it (the directory's business rules then apply, 422 as through the API), seed lines (one
// by one, or in bulk: JSON array or NDJSON), companies. Hand-written checks: a bulk seed checks 100,000 lines.
import { addressId } from './addressing';
import { placeholderName, type SimCompany } from './companies';
import { isDay } from './days';
import { HttpError } from './http';
import { DEFAULT_SINCE, overlap, Refusal, type LineStore, type NewLine, type Period, type SeedLine } from './store';

type Obj = Record<string, unknown>;
const bad = (where: string, why: string) => new HttpError(400, `${where}${why}`);

/** Formats of the text fields (those of the Annuaire's OpenAPI where it has one). */
const TEXT: Record<string, [RegExp, string]> = {
  siren: [/^\d{9}$/, '9 chiffres'],
  siret: [/^\d{14}$/, '14 chiffres'],
  matriculePlateforme: [/^\d{4}$/, '4 chiffres'],
  identifiantRoutage: [/^(?!\s+$)[-_/@a-zA-Z0-9]{1,100}$/, '1 à 100 caractères parmi A-Z a-z 0-9 - _ / @'],
  suffixeAdressage: [/^[-_.@a-zA-Z0-9]{1,100}$/, '1 à 100 caractères parmi A-Z a-z 0-9 - _ . @'],
  creePar: [/^.{1,100}$/, '1 à 100 caractères'],
  raisonSociale: [/^(?!\s*$).{1,200}$/, 'un texte de 1 à 200 caractères'],
};

/** `x` as an object with only `allowed` members and the `required` ones. */
export function object(x: unknown, where: string, allowed: readonly string[], required: readonly string[] = []): Obj {
  if (!x || typeof x !== 'object' || Array.isArray(x)) throw bad(where, 'un objet JSON est attendu');
  const unknown = Object.keys(x).find((k) => !allowed.includes(k));
  if (unknown !== undefined) throw bad(where, `propriété inconnue « ${unknown} » (permises : ${allowed.join(', ')})`);
  const missing = required.find((k) => (x as Obj)[k] === undefined);
  if (missing !== undefined) throw bad(where, `propriété obligatoire « ${missing} » absente`);
  return x as Obj;
}

function text(o: Obj, k: string, where: string): string | undefined {
  const v = o[k];
  if (v === undefined) return undefined;
  const [pattern, what] = TEXT[k]!;
  if (typeof v !== 'string' || !pattern.test(v))
    throw bad(where, `${k} : ${what} attendus (reçu ${JSON.stringify(v)})`);
  return v;
}

/** A day YYYY-MM-DD; null when `nullable` allows it. */
export function day(v: unknown, name: string, where = '', nullable = false): string | null | undefined {
  if (v === undefined || (v === null && nullable)) return v;
  if (!isDay(v)) throw bad(where, `${name} : une date AAAA-MM-JJ${nullable ? ' ou null' : ''} attendue`);
  return v;
}

const ADDRESS = ['siren', 'siret', 'identifiantRoutage', 'suffixeAdressage', 'matriculePlateforme'] as const;

/** A line another platform writes: its rules are the directory's (422), only the shape is checked here. */
export function platformLineInput(x: unknown): { line: NewLine; takeOver: boolean } {
  const o = object(
    x,
    '',
    [...ADDRESS, 'dateDebutEffet', 'dateFinEffet', 'takeOver'],
    ['siren', 'matriculePlateforme', 'dateDebutEffet'],
  );
  if (o.takeOver !== undefined && typeof o.takeOver !== 'boolean') throw bad('', 'takeOver : true ou false');
  const line = { dateDebutEffet: day(o.dateDebutEffet, 'dateDebutEffet') as string } as NewLine;
  for (const k of ADDRESS) if (o[k] !== undefined) line[k] = text(o, k, '')!;
  const end = day(o.dateFinEffet, 'dateFinEffet', '', true);
  if (end !== undefined) line.dateFinEffet = end;
  return { line, takeOver: o.takeOver === true };
}

/** A seed line: no business rule, but an address that is one (a SIRET of its SIREN…) and a period that is one. */
export function seedLineInput(x: unknown, where = ''): SeedLine {
  const o = object(
    x,
    where,
    [...ADDRESS, 'dateDebutEffet', 'dateFinEffet', 'creePar'],
    ['siren', 'matriculePlateforme'],
  );
  const s = {} as SeedLine;
  for (const k of [...ADDRESS, 'creePar'] as const) if (o[k] !== undefined) s[k] = text(o, k, where)!;
  if (s.siret && !s.siret.startsWith(s.siren))
    throw bad(where, `siret : ${s.siret} n'est pas un SIRET du SIREN ${s.siren}`);
  if (s.identifiantRoutage && !s.siret) throw bad(where, 'identifiantRoutage : exige un siret');
  if (s.suffixeAdressage && s.siret) throw bad(where, 'suffixeAdressage : ne se combine pas avec un siret');
  const from = day(o.dateDebutEffet, 'dateDebutEffet', where);
  const end = day(o.dateFinEffet, 'dateFinEffet', where, true);
  if (from) s.dateDebutEffet = from;
  if (end !== undefined) s.dateFinEffet = end;
  if (end && end < (from ?? DEFAULT_SINCE)) throw bad(where, `dateFinEffet : ${end} précède dateDebutEffet`);
  return s;
}

export function companyInput(x: unknown, where = '', siren?: string): SimCompany {
  const o = object(x, where, ['siren', 'raisonSociale', 'etatAdministratif', 'typeEntite', 'known']);
  if (o.known !== undefined && typeof o.known !== 'boolean') throw bad(where, 'known : true ou false');
  if (o.known !== false && o.raisonSociale === undefined)
    throw bad(where, 'propriété obligatoire « raisonSociale » absente (sauf pour known : false)');
  if (siren === undefined && o.siren === undefined) throw bad(where, 'propriété obligatoire « siren » absente');
  if (siren !== undefined && o.siren !== undefined && o.siren !== siren)
    throw bad(where, `siren : ${JSON.stringify(o.siren)} n'est pas celui du chemin (${siren})`);
  const { etatAdministratif = 'A', typeEntite } = o;
  if (etatAdministratif !== 'A' && etatAdministratif !== 'C') throw bad(where, 'etatAdministratif : A ou C');
  if (typeEntite !== undefined && typeEntite !== 'Publique' && typeEntite !== 'Privée assujettie')
    throw bad(where, 'typeEntite : Publique ou Privée assujettie');
  return {
    siren: siren ?? text(o, 'siren', where)!,
    raisonSociale:
      o.raisonSociale === undefined ? placeholderName(siren ?? String(o.siren)) : text(o, 'raisonSociale', where)!,
    etatAdministratif,
    ...(typeEntite !== undefined && { typeEntite }),
    ...(o.known === false && { known: false }),
  };
}

/** A JSON body (any content type: the simulator's owner calls with curl); an empty one is `empty`. */
export function jsonBody(raw: string, empty?: unknown): unknown {
  if (!raw.trim() && empty !== undefined) return empty;
  try {
    return JSON.parse(raw);
  } catch {
    throw bad('', 'corps JSON attendu');
  }
}

/** A bulk body: a JSON array, or NDJSON (one JSON value per line). */
export function manyBody(raw: string): unknown[] {
  const text = raw.trim();
  if (text.startsWith('[')) {
    const all = jsonBody(text);
    if (!Array.isArray(all)) throw bad('', 'un tableau JSON ou du NDJSON est attendu');
    return all;
  }
  const items: unknown[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      items.push(JSON.parse(line));
    } catch {
      throw bad('', `ligne ${i + 1} : JSON mal formé`);
    }
  });
  return items;
}

/**
 * Seeds checked before any is written: each against the store and the batch's earlier seeds on its address (the one
 * rule seeds follow); a refusal names the seed's index and nothing is written.
 */
export function checkedSeeds(store: LineStore, items: readonly unknown[]): SeedLine[] {
  const seeds = items.map((x, i) => seedLineInput(x, `[${i}] `));
  const batch = new Map<string, { i: number; p: Period }[]>();
  seeds.forEach((s, i) => {
    const address = addressId(s);
    const p = { dateDebutEffet: s.dateDebutEffet ?? DEFAULT_SINCE, dateFinEffet: s.dateFinEffet ?? null };
    try {
      store.refuseOverlap(address, p);
    } catch (err) {
      throw err instanceof Refusal ? new Refusal(err.status, `[${i}] ${err.detail}`) : err;
    }
    const earlier = batch.get(address);
    const clash = earlier?.find((o) => overlap(o.p, p));
    if (clash) throw new Refusal(422, `[${i}] la période chevauche celle de [${clash.i}] sur l'adresse ${address}`);
    if (earlier) earlier.push({ i, p });
    else batch.set(address, [{ i, p }]);
  });
  return seeds;
}
