// The search itself over the simulated register. A SIREN (or a SIRET's SIREN) is looked up directly and every filter
// is ignored, as the contract says; otherwise each word of q (folded: text.ts) must be a word of the company's name
// or of its directors' names, and every filter given must hold. Results rank name matches first (the score counts
// q's words found in the name), then by SIREN, so pages are stable. A non-diffusible company is never shown: the
// public API does not hold them.
import type { StoredCompany } from './companies';
import type { PersonFilter, SearchQuery } from './query';
import { flags, result } from './result';
import type { CompanyStore, Entry } from './store';
import { allIn, words } from './text';

export interface Payload {
  results: Record<string, unknown>[];
  total_results: number;
  page: number;
  per_page: number;
  total_pages: number;
}

function personMatches(c: StoredCompany, p: PersonFilter): boolean {
  if (p.type === 'elu') return false; // the simulator's companies have no elected officials
  const nom = p.nom ? words(p.nom) : [];
  const prenoms = p.prenoms ? words(p.prenoms) : [];
  return c.dirigeants.some((d) => {
    if (d.type_dirigeant !== 'personne physique') return !nom.length && !prenoms.length && !p.min && !p.max;
    if (!allIn(nom, new Set(words(d.nom))) || !allIn(prenoms, new Set(words(d.prenoms)))) return false;
    if (!p.min && !p.max) return true;
    if (!d.date_de_naissance) return false; // known to the month: a bound's month is enough
    return (!p.min || d.date_de_naissance >= p.min.slice(0, 7)) && (!p.max || d.date_de_naissance <= p.max.slice(0, 7));
  });
}

function filtersHold(c: StoredCompany, q: SearchQuery): boolean {
  if (q.unknownData) return false;
  if (q.etat && c.etat_administratif !== q.etat) return false;
  if (q.natures && !q.natures.includes(c.nature_juridique)) return false;
  const f = flags(c);
  if (Object.entries(q.booleans).some(([name, want]) => (f[name] ?? false) !== want)) return false;
  return !q.person || personMatches(c, q.person);
}

export function search(store: CompanyStore, q: SearchQuery): Payload {
  let found: { entry: Entry; score: number }[];
  if (q.siren) {
    const entry = store.entry(q.siren);
    found = entry?.company.diffusible ? [{ entry, score: 1 }] : [];
  } else {
    const wanted = q.q ? words(q.q) : [];
    found = [];
    // A q with no word in it (punctuation only) matches nothing.
    for (const entry of q.q && !wanted.length ? [] : store.all()) {
      if (!entry.company.diffusible || !allIn(wanted, entry.allWords) || !filtersHold(entry.company, q)) continue;
      found.push({ entry, score: wanted.filter((w) => entry.nameWords.has(w)).length });
    }
    found.sort((a, b) => b.score - a.score || (a.entry.company.siren < b.entry.company.siren ? -1 : 1));
  }
  const from = (q.page - 1) * q.perPage;
  return {
    results: found
      .slice(from, from + q.perPage)
      .map(({ entry, score }) => result(entry.company, q.fields, score, q.siret)),
    total_results: found.length,
    page: q.page,
    per_page: q.perPage,
    total_pages: Math.ceil(found.length / q.perPage),
  };
}
