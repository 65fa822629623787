// The ligne-annuaire endpoints: search, create, read by addressing id or instance id, end (PATCH/PUT), mask (DELETE).
import { HttpError, checkRattachements, observationDay, readJson } from './http';
import { pageOf, search, select, wireLine, type SearchBody } from './search';
import type { StoredLine } from './store';
import type { Call, Sim } from './call';

/** Answers a directory-line request; false when the request is not one. */
export function answerLines(sim: Sim, c: Call): boolean {
  const { method, path: p } = c;
  let m: RegExpMatchArray | null;
  if (method === 'POST' && p === '/ligne-annuaire/recherche') {
    const body = readJson(c.req, c.raw) ?? {};
    sim.check('searchLigneAnnuaire', body);
    const b = body as SearchBody;
    const siren = b.filtres?.siren?.valeur;
    if (siren) sim.commit(() => sim.store.ensureDefault(siren));
    // A SIREN's lines, else a platform's: never every platform's lines when the search names one. What it finds is
    // kept for its next pages (the same search but `limite` and `ignorer`) while none of those lines changes.
    const matricule = b.filtres?.matriculePlateforme?.valeur || undefined;
    const key = JSON.stringify([c.day, b.filtres, b.tris]);
    const scope = siren ? `s${siren}` : matricule ? `m${matricule}` : '*';
    const found = sim.store.searches.get(key, scope, () =>
      select(sim.store.candidates(siren || undefined, matricule), b, c.day, (l) => sim.store.view(l, c.day)),
    );
    const r = pageOf(found, b);
    if (r.total === 0) c.answer(204);
    else c.answer(r.partial ? 206 : 200, { recherche: b, nombre_total_resultats: r.total, resultats: r.page });
    return true;
  }
  if (method === 'POST' && p === '/ligne-annuaire') return (create(sim, c), true);
  if (method === 'GET' && (m = p.match(/^\/ligne-annuaire\/code:(.+)$/))) {
    const id = m[1]!;
    const on = observationDay(c.url, c.day);
    sim.commit(() => sim.store.ensureDefault(id.slice(0, 9)));
    const found = search(
      sim.store.candidates(id.slice(0, 9)).filter((l) => l.identifiantAdressage === id),
      { filtres: { historisation: { dateObservation: { valeur: on } } } },
      c.day,
      (l) => sim.store.view(l, c.day),
    ).page;
    if (!found[0]) throw new HttpError(404, `aucune ligne d'annuaire en vigueur le ${on} pour ${id}`);
    c.answer(200, found[0]);
    return true;
  }
  if ((m = p.match(/^\/ligne-annuaire\/id-instance:(.+)$/))) {
    if (!/^\d+$/.test(m[1]!)) throw new HttpError(400, 'id-instance doit être un entier');
    return byInstance(sim, c, Number(m[1]));
  }
  return false;
}

function create(sim: Sim, c: Call): void {
  checkRattachements(c.req);
  const body = readJson(c.req, c.raw);
  sim.check('createLigneAnnuaireBody', body);
  const b = body as {
    periodeEffet?: { dateDebutEffet: string; dateFinEffet?: string | null };
    informationAdressage?: Omit<StoredLine, 'idInstance'>;
  };
  if (!b.periodeEffet || !b.informationAdressage)
    throw new HttpError(400, 'periodeEffet et informationAdressage sont obligatoires');
  const { siren, siret, identifiantRoutage, suffixeAdressage, matriculePlateforme } = b.informationAdressage;
  const { dateDebutEffet, dateFinEffet } = b.periodeEffet;
  const line = sim.commit(() =>
    sim.store.create(
      {
        siren,
        siret,
        identifiantRoutage,
        suffixeAdressage,
        matriculePlateforme,
        dateDebutEffet,
        ...(dateFinEffet && { dateFinEffet }),
      },
      c.by,
      c.day,
    ),
  );
  c.answer(201, {
    idInstance: line.idInstance,
    identifiantAdressage: line.identifiantAdressage,
    dateDebutEffet: line.dateDebutEffet,
  });
}

function byInstance(sim: Sim, c: Call, id: number): boolean {
  const { method } = c;
  if (method === 'GET') {
    const stored = sim.store.byId(id);
    const l = stored && sim.store.view(stored, c.day); // not yet visible: as unknown
    if (!l) throw new HttpError(404, `aucune ligne d'annuaire d'idInstance ${id}`);
    c.answer(200, wireLine(l));
    return true;
  }
  if (method === 'PATCH' || method === 'PUT') {
    checkRattachements(c.req);
    const body = readJson(c.req, c.raw);
    sim.check(method === 'PATCH' ? 'updatePatchLigneAnnuaireBody' : 'updatePutLigneAnnuaireBody', body);
    const b = body as { dateFinEffet?: string | null; matriculePlateforme?: string };
    const current = sim.store.byId(id);
    if (!current) throw new HttpError(404, `aucune ligne d'annuaire d'idInstance ${id}`);
    if (b.matriculePlateforme && b.matriculePlateforme !== current.matriculePlateforme) {
      throw new HttpError(
        422,
        'changer de plateforme se fait en clôturant la ligne puis en créant une nouvelle ligne (historique conservé)',
      );
    }
    // PUT is exhaustive: an absent end date means none. PATCH leaves what it does not name.
    const end = method === 'PUT' ? (b.dateFinEffet ?? null) : b.dateFinEffet;
    if (end === undefined) throw new HttpError(400, 'rien à modifier : dateFinEffet absente');
    const l = sim.commit(() => sim.store.setEnd(id, end, c.by, c.day));
    c.answer(200, {
      idInstance: l.idInstance,
      identifiantAdressage: l.identifiantAdressage,
      dateDebutEffet: l.dateDebutEffet,
    });
    return true;
  }
  if (method === 'DELETE') {
    // The PPF never erases a line: "supprimer" masks one not yet in force (a masking line cancels it).
    checkRattachements(c.req);
    sim.commit(() => sim.store.mask(id, c.by, c.day));
    c.answer(204);
    return true;
  }
  return false;
}
