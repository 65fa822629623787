// The simulated directory: lines with their whole history, the overlap rule, the default 9998 line, the routing codes
// (routing-codes.ts) a SIREN_SIRET_ROUTAGE line needs, the companies, the simulator's day and settings, persistence
// (journal.ts). Periods are [dateDebutEffet, dateFinEffet): a line ended on D is no longer in force on D, so the next
// line can start on D (the DSE switch rule: the old line ends at the switch date, the new one starts on it).
import { addressId, DEFAULT_MATRICULE, isSirenLevel } from './addressing';
import { KNOWN_COMPANIES, type SimCompany, type StoredCompany } from './companies';
import { realToday } from './days';
import { StateFile } from '../state-file';
import { LineIndex, type NewLine, type SeedLine, type StoredLine } from './lines';
import { Refusal } from './refusal';
import { RoutingCodes } from './routing-codes';
import { FoundLines } from './found-lines';
import type { JournalRecord, SimSettings, Snapshot } from './state';
import { remember, viewOn } from './visibility';

export type { NewLine, SeedLine, StoredLine } from './lines';
export type { SimSettings } from './state';

/** A refusal the server turns into problem+json. */
export { Refusal };

/** Since when the fictive platform holds every company (the directory's initial load). */
export const DEFAULT_SINCE = '2024-09-01';
const END_OF_TIME = '9999-12-31';

export const inForceOn = (l: StoredLine, day: string) =>
  !l.masque && l.dateDebutEffet <= day && (l.dateFinEffet === null || day < l.dateFinEffet);
export type Period = { dateDebutEffet: string; dateFinEffet: string | null };
export const overlap = (a: Period, b: Period) =>
  a.dateDebutEffet < (b.dateFinEffet ?? END_OF_TIME) && b.dateDebutEffet < (a.dateFinEffet ?? END_OF_TIME);

export class LineStore {
  private readonly lines = new LineIndex();
  readonly companies = new Map<string, StoredCompany>();
  readonly settings: SimSettings = { day: null, changesVisibleNextDay: false };
  private nextId = 1;
  /** The routing codes, under the same idInstance counter and in the same state file. */
  readonly routingCodes: RoutingCodes;
  private readonly persisted?: StateFile<Snapshot, JournalRecord>;
  /** What searches found, kept for their next pages. */
  readonly searches = new FoundLines();
  /** What changed since the last flush, by thing: the journal's next records. */
  private readonly dirty = new Map<string, JournalRecord>();

  constructor(file?: string) {
    for (const c of KNOWN_COMPANIES) this.companies.set(c.siren, { ...c, idInstance: 1_000_000 + this.companies.size });
    this.persisted = file ? new StateFile<Snapshot, JournalRecord>(file, 'Annuaire simulator') : undefined;
    const { snapshot, records } = this.persisted?.load() ?? { records: [] };
    snapshot?.lines.forEach((l) => this.lines.add(l));
    this.nextId = snapshot?.nextId ?? 1;
    snapshot?.companies?.forEach((c) => this.companies.set(c.siren, c));
    Object.assign(this.settings, snapshot?.settings);
    this.routingCodes = new RoutingCodes(
      () => this.nextId++,
      [...(snapshot?.routingCodes ?? [])],
      (c) => this.touch({ t: 'code', v: c }),
      () => this.stamp(),
    );
    records.forEach((r) => this.replay(r));
    if (this.persisted?.shouldCompact()) this.compact();
  }

  /** The day business rules count in: the clock's when set, else the real date. */
  day(): string {
    return this.settings.day ?? realToday();
  }

  /** A write's timestamp (dateDefinition), on the simulator's day. */
  stamp(): string {
    const now = new Date().toISOString();
    return this.settings.day ? this.settings.day + now.slice(10) : now;
  }

  setSettings(change: Partial<SimSettings>): void {
    Object.assign(this.settings, change);
    this.touch({ t: 'settings', v: this.settings });
  }

  putCompany(c: SimCompany): StoredCompany {
    const known = this.companies.get(c.siren);
    const idInstance = known?.idInstance ?? 1_000_000 + this.companies.size;
    const stored: StoredCompany = { ...c, idInstance };
    this.companies.set(c.siren, stored);
    this.touch({ t: 'company', v: stored });
    return stored;
  }

  /** A copy of every line (tests and inspection): the true state, whatever reads see today. */
  all(): StoredLine[] {
    return structuredClone(this.lines.all);
  }

  /** The lines a search may look at, not copied (read-only), in idInstance order: a SIREN's, else a matricule's. */
  candidates(siren?: string, matricule?: string): readonly StoredLine[] {
    if (siren !== undefined) return this.lines.ofSiren(siren);
    if (matricule !== undefined) return this.lines.ofMatricule(matricule);
    return this.lines.all;
  }

  byId(id: number): StoredLine | undefined {
    return this.lines.get(id);
  }

  /** The line as reads see it today (next-day visibility), undefined when not visible yet. */
  view(l: StoredLine, day = this.day()): StoredLine | undefined {
    return viewOn(l, day);
  }

  /** A SIREN never seen has its default SIREN line on 9998; it is written down the first time it is looked at. */
  ensureDefault(siren: string): void {
    if (!/^\d{9}$/.test(siren) || this.companies.get(siren)?.known === false) return;
    if (this.candidates(siren).some(isSirenLevel)) return;
    this.insert({ siren, matriculePlateforme: DEFAULT_MATRICULE, dateDebutEffet: DEFAULT_SINCE, creePar: 'PPF' });
  }

  /** Test seeding: no business rules beyond the overlap rule; visible at once. */
  seed(s: SeedLine): StoredLine {
    const line = { ...s, dateDebutEffet: s.dateDebutEffet ?? DEFAULT_SINCE, dateFinEffet: s.dateFinEffet ?? null };
    this.refuseOverlap(addressId(line), line);
    return structuredClone(this.insert({ ...line, creePar: s.creePar ?? 'seed' }));
  }

  /** Seeds already checked (bulk.ts checked their overlaps against the store and each other). */
  seedChecked(seeds: readonly SeedLine[]): StoredLine[] {
    const at = this.stamp();
    return seeds.map((s) =>
      this.insert({ ...s, dateDebutEffet: s.dateDebutEffet ?? DEFAULT_SINCE, creePar: s.creePar ?? 'seed' }, at),
    );
  }

  /** The rules a new line follows, the overlap aside. */
  checkNew(l: NewLine, day: string): void {
    if (l.siret && !l.siret.startsWith(l.siren))
      throw new Refusal(422, `le SIRET ${l.siret} n'appartient pas au SIREN ${l.siren}`);
    if (l.identifiantRoutage && !l.siret) throw new Refusal(422, 'un identifiant de routage exige un SIRET');
    if (l.identifiantRoutage && l.siret) {
      const refusal = this.routingCodes.refusalForNewLine(l.siret, l.identifiantRoutage);
      if (refusal) throw refusal;
    }
    if (l.suffixeAdressage && l.siret) throw new Refusal(422, "un suffixe d'adressage ne se combine pas avec un SIRET");
    if (l.dateDebutEffet < day)
      throw new Refusal(422, `dateDebutEffet ${l.dateDebutEffet} est dans le passé (au plus tôt ${day})`);
    if (l.dateFinEffet && l.dateFinEffet <= l.dateDebutEffet)
      throw new Refusal(422, 'dateFinEffet doit être postérieure à dateDebutEffet');
  }

  create(l: NewLine, by: string, day: string): StoredLine {
    this.checkNew(l, day);
    this.ensureDefault(l.siren);
    const line = { ...l, dateFinEffet: l.dateFinEffet ?? null };
    this.refuseOverlap(addressId(line), line);
    const created = this.insert({ ...line, creePar: by });
    if (this.settings.changesVisibleNextDay) remember(created, day, true);
    return created;
  }

  /** Sets (or, with null, removes) a line's end date. Past history is frozen. `atOnce`: the PPF's own change. */
  setEnd(id: number, dateFinEffet: string | null, by: string, day: string, atOnce = false): StoredLine {
    const l = this.byId(id);
    if (!l) throw new Refusal(404, `aucune ligne d'annuaire d'idInstance ${id}`);
    if (l.masque) throw new Refusal(422, `la ligne ${id} est masquée : elle n'a plus de période d'effet`);
    if (l.dateFinEffet !== null && l.dateFinEffet < day)
      throw new Refusal(
        422,
        `la ligne ${id} est close depuis le ${l.dateFinEffet} : l'historique n'est pas modifiable`,
      );
    if (dateFinEffet !== null && dateFinEffet < day)
      throw new Refusal(422, `dateFinEffet ${dateFinEffet} est dans le passé (au plus tôt ${day})`);
    if (dateFinEffet !== null && dateFinEffet < l.dateDebutEffet)
      throw new Refusal(422, `dateFinEffet ${dateFinEffet} précède dateDebutEffet ${l.dateDebutEffet}`);
    this.refuseOverlap(l.identifiantAdressage, { dateDebutEffet: l.dateDebutEffet, dateFinEffet }, [id]);
    this.published(l, day, atOnce);
    l.dateFinEffet = dateFinEffet;
    l.modifications.push({ at: this.stamp(), par: by, dateFinEffet });
    this.touch({ t: 'line', v: l });
    return l;
  }

  /**
   * Masks (cancels) a line not yet in force: it stays in the history, marked, and no longer counts. A line in force
   * or past is ended instead (its history is kept). Masking a masked line again changes nothing.
   */
  mask(id: number, by: string, day: string, atOnce = false): StoredLine {
    const l = this.byId(id);
    if (!l) throw new Refusal(404, `aucune ligne d'annuaire d'idInstance ${id}`);
    if (l.masque) return l;
    if (l.dateFinEffet !== null && l.dateFinEffet <= day)
      throw new Refusal(
        422,
        `la ligne ${id} est close depuis le ${l.dateFinEffet} : l'historique n'est pas modifiable`,
      );
    if (l.dateDebutEffet <= day)
      throw new Refusal(
        422,
        `la ligne ${id} est en vigueur depuis le ${l.dateDebutEffet} : seule une ligne pas encore en vigueur se masque, clôturez-la (dateFinEffet)`,
      );
    this.published(l, day, atOnce);
    l.masque = true;
    l.modifications.push({ at: this.stamp(), par: by, dateFinEffet: l.dateFinEffet });
    this.touch({ t: 'line', v: l });
    return l;
  }

  /** Refuses a period that overlaps a line on the address (lines `except` aside). */
  refuseOverlap(address: string, period: Period, except: readonly number[] = []): void {
    // An address starts with its SIREN.
    const clash = this.candidates(address.slice(0, 9)).find(
      (o) => o.identifiantAdressage === address && !except.includes(o.idInstance) && !o.masque && overlap(o, period),
    );
    if (clash) {
      throw new Refusal(
        422,
        `la période chevauche la ligne ${clash.idInstance} (plateforme ${clash.matriculePlateforme}, du ${clash.dateDebutEffet}` +
          `${clash.dateFinEffet ? ` au ${clash.dateFinEffet}` : ''}) sur l'adresse ${address} : clôturez-la d'abord`,
      );
    }
  }

  /** Writes what changed since the last call to the journal (one append); compacts when the journal is large. */
  flush(): void {
    if (!this.dirty.size) return;
    const records = [...this.dirty.values()];
    this.dirty.clear();
    this.persisted?.append(records);
    if (this.persisted?.shouldCompact()) this.compact();
  }

  /** At a clean stop: the state in one file again. */
  close(): void {
    this.flush();
    if (this.persisted?.hasJournal()) this.compact();
  }

  private compact(): void {
    const { nextId, settings } = this;
    const companies = [...this.companies.values()];
    const routingCodes = this.routingCodes.all();
    this.persisted?.compact({ nextId, lines: this.lines.all, routingCodes, companies, settings });
  }

  /** Next-day visibility: remembers what reads see until tomorrow, unless the change is visible at once. */
  private published(l: StoredLine, day: string, atOnce: boolean): void {
    if (this.settings.changesVisibleNextDay && !atOnce) remember(l, day);
    else delete l.before;
  }

  private touch(r: JournalRecord): void {
    if (r.t === 'line') this.searches.changed(r.v);
    if (!this.persisted) return;
    const key = r.t === 'settings' ? 's' : r.t === 'company' ? `u${r.v.siren}` : `${r.t}${r.v.idInstance}`;
    this.dirty.set(key, r);
  }

  private replay(r: JournalRecord): void {
    if (r.t === 'settings') Object.assign(this.settings, r.v);
    else if (r.t === 'company') this.companies.set(r.v.siren, r.v);
    else if (r.t === 'code') this.routingCodes.restore(r.v);
    else this.lines.put(r.v);
    if (r.t === 'line' || r.t === 'code') this.nextId = Math.max(this.nextId, r.v.idInstance + 1);
  }

  private insert(
    l: Omit<NewLine, 'dateFinEffet'> & { dateFinEffet?: string | null; creePar: string },
    at = this.stamp(),
  ): StoredLine {
    const line: StoredLine = {
      idInstance: this.nextId++,
      identifiantAdressage: addressId(l),
      siren: l.siren,
      ...(l.siret && { siret: l.siret }),
      ...(l.identifiantRoutage && { identifiantRoutage: l.identifiantRoutage }),
      ...(l.suffixeAdressage && { suffixeAdressage: l.suffixeAdressage }),
      matriculePlateforme: l.matriculePlateforme,
      dateDebutEffet: l.dateDebutEffet,
      dateFinEffet: l.dateFinEffet ?? null,
      dateDefinition: at,
      creePar: l.creePar,
      modifications: [],
    };
    this.lines.add(line);
    this.touch({ t: 'line', v: line });
    return line;
  }
}
