// The simulator playing the directory's other actors (admin routes): another platform, under the real rules, and the
// PPF itself. What they do is what our service must cope with: a take-over of an address by another platform (the DSE
// switch), a line of ours ended or masked by the PPF when the company ceases.
import { addressId } from './addressing';
import { placeholderName, type StoredCompany } from './companies';
import { Refusal, type LineStore, type NewLine, type StoredLine } from './store';

/** The author another platform's writes carry (creePar, the author of a change): "platform:<matricule>". */
export const platformActor = (matricule: string) => `platform:${matricule}`;
/** The author of the PPF's own writes, as on its default 9998 lines. */
export const PPF = 'PPF';

/**
 * Ends `l` at `day` or, when it would only start on or after that day (and is not in force yet), masks it. A line
 * starting on the simulator's day is in force: it is ended on that same day (an empty period), not masked.
 */
function endOrMask(store: LineStore, l: StoredLine, on: string, by: string, atOnce: boolean): 'ended' | 'masked' {
  const day = store.day();
  if (l.dateDebutEffet >= on && l.dateDebutEffet > day) {
    store.mask(l.idInstance, by, day, atOnce);
    return 'masked';
  }
  store.setEnd(l.idInstance, on, by, day, atOnce);
  return 'ended';
}

/**
 * Another platform creates a line. With `takeOver`, it is the DSE switch done by the new platform: every other
 * platform's line on the address in force on or after `dateDebutEffet` is ended on that day (or masked when it would
 * only start then or later), then the new line starts on it. Refused before anything changes when the line breaks a
 * rule or overlaps a line of the acting platform itself.
 */
export function createAs(store: LineStore, l: NewLine, takeOver: boolean): StoredLine {
  const day = store.day();
  const by = platformActor(l.matriculePlateforme);
  if (!takeOver) return store.create(l, by, day);
  store.checkNew(l, day);
  store.ensureDefault(l.siren);
  const address = addressId(l);
  const from = l.dateDebutEffet;
  const others = store
    .candidates(l.siren)
    .filter(
      (o) =>
        o.identifiantAdressage === address &&
        o.matriculePlateforme !== l.matriculePlateforme &&
        !o.masque &&
        (o.dateFinEffet === null || o.dateFinEffet > from),
    );
  const period = { dateDebutEffet: from, dateFinEffet: l.dateFinEffet ?? null };
  store.refuseOverlap(
    address,
    period,
    others.map((o) => o.idInstance),
  );
  for (const o of others) endOrMask(store, o, from, by, false);
  return store.create(l, by, day);
}

/** Another platform ends (or, with null, reopens) one of its lines. */
export function endAs(store: LineStore, id: number, dateFinEffet: string | null): StoredLine {
  const l = store.byId(id);
  if (!l) throw new Refusal(404, `aucune ligne d'annuaire d'idInstance ${id}`);
  return store.setEnd(id, dateFinEffet, platformActor(l.matriculePlateforme), store.day());
}

/** Another platform masks one of its lines not yet in force. */
export function maskAs(store: LineStore, id: number): StoredLine {
  const l = store.byId(id);
  if (!l) throw new Refusal(404, `aucune ligne d'annuaire d'idInstance ${id}`);
  return store.mask(id, platformActor(l.matriculePlateforme), store.day());
}

/**
 * The PPF records that a company has ceased (etatAdministratif C) from `on`: each line of the SIREN in force on or
 * after that day is ended on it (masked when not yet in force by then); a line already ended by then is left alone.
 * The PPF's own changes are visible at once. A SIREN never seen gets its default 9998 line first, ended with the
 * others, so that no default line appears for it later.
 */
export function cease(store: LineStore, siren: string, on: string) {
  store.ensureDefault(siren);
  const ended: StoredLine[] = [];
  const masked: StoredLine[] = [];
  for (const l of store.candidates(siren)) {
    if (l.masque || (l.dateFinEffet !== null && l.dateFinEffet <= on)) continue;
    (endOrMask(store, l, on, PPF, true) === 'ended' ? ended : masked).push(l);
  }
  const known: Partial<StoredCompany> = store.companies.get(siren) ?? {};
  const company = store.putCompany({
    siren,
    raisonSociale: known.raisonSociale ?? placeholderName(siren),
    ...(known.typeEntite && { typeEntite: known.typeEntite }),
    etatAdministratif: 'C',
  });
  return { company, ended, masked };
}
