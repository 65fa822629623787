// The simulated directory: lines with their whole history, the overlap rule, the default 9998 line, the routing codes
// (routing-codes.ts) a SIREN_SIRET_ROUTAGE line needs, persistence.
// Periods are [dateDebutEffet, dateFinEffet): a line ended on D is no longer in force on D, so the next line can
// start on D (the DSE switch rule: the old line ends at the switch date, the new one starts on it).
import fs from 'node:fs';
import path from 'node:path';
import { addressId, DEFAULT_MATRICULE, isSirenLevel, type Addressing } from './addressing';
import { Refusal } from './refusal';
import { RoutingCodes, type StoredRoutingCode } from './routing-codes';

/** A line with what the directory keeps about its history. */
export interface StoredLine extends Addressing {
  idInstance: number;
  identifiantAdressage: string;
  matriculePlateforme: string;
  dateDebutEffet: string;
  /** Exclusive: the line is no longer in force on this day. */
  dateFinEffet: string | null;
  /** When the line was written (historisation.dateDefinition) and by whom. */
  dateDefinition: string;
  creePar: string;
  /** Every change of the end date, so nothing is ever lost. */
  modifications: { at: string; par: string; dateFinEffet: string | null }[];
  /** Cancelled before it was ever in force (DELETE): kept in the history, never in force, never in the way. */
  masque?: boolean;
}

export type SeedLine = Partial<
  Pick<StoredLine, 'siret' | 'identifiantRoutage' | 'suffixeAdressage' | 'dateFinEffet' | 'creePar'>
> & {
  siren: string;
  matriculePlateforme: string;
  dateDebutEffet?: string;
};

/** A refusal the server turns into problem+json. */
export { Refusal };

/** Since when the fictive platform holds every company (the directory's initial load). */
export const DEFAULT_SINCE = '2024-09-01';
const END_OF_TIME = '9999-12-31';

/** Today as the simulator counts days (UTC), YYYY-MM-DD. */
export const today = (): string => new Date().toISOString().slice(0, 10);

export const inForceOn = (l: StoredLine, day: string) =>
  !l.masque && l.dateDebutEffet <= day && (l.dateFinEffet === null || day < l.dateFinEffet);
const overlap = (a: { dateDebutEffet: string; dateFinEffet: string | null }, b: typeof a) =>
  a.dateDebutEffet < (b.dateFinEffet ?? END_OF_TIME) && b.dateDebutEffet < (a.dateFinEffet ?? END_OF_TIME);

export class LineStore {
  private lines: StoredLine[] = [];
  // Indexes, so that a request costs the same with ten lines or a bulk onboarding's tens of thousands.
  private readonly byIdInstance = new Map<number, StoredLine>();
  private readonly bySiren = new Map<string, StoredLine[]>();
  private nextId = 1;
  /** The routing codes, under the same idInstance counter and in the same state file. */
  readonly routingCodes: RoutingCodes;

  constructor(private readonly file?: string) {
    let codes: StoredRoutingCode[] = [];
    if (file && fs.existsSync(file)) {
      try {
        // routingCodes came later: a file written before them has none.
        const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as {
          nextId: number;
          lines: StoredLine[];
          routingCodes?: StoredRoutingCode[];
        };
        saved.lines.forEach((l) => this.index(l));
        this.nextId = saved.nextId;
        codes = saved.routingCodes ?? [];
      } catch (err) {
        throw new Error(`Annuaire simulator: cannot read its state file ${file}: ${(err as Error).message}`);
      }
    }
    this.routingCodes = new RoutingCodes(() => this.nextId++, codes);
  }

  /** A copy of every line (tests and inspection). */
  all(): StoredLine[] {
    return structuredClone(this.lines);
  }

  /** The lines a search may return, not copied (read-only for the caller): a SIREN's when the search names one. */
  candidates(siren?: string): readonly StoredLine[] {
    return siren === undefined ? this.lines : (this.bySiren.get(siren) ?? []);
  }

  byId(id: number): StoredLine | undefined {
    return this.byIdInstance.get(id);
  }

  /** A SIREN never seen has its default SIREN line on 9998; it is written down the first time it is looked at. */
  ensureDefault(siren: string): void {
    if (!/^\d{9}$/.test(siren) || this.candidates(siren).some(isSirenLevel)) return;
    this.insert(
      { siren, matriculePlateforme: DEFAULT_MATRICULE, dateDebutEffet: DEFAULT_SINCE, creePar: 'PPF' },
      new Date().toISOString(),
    );
  }

  /** Test seeding: no business rules beyond the overlap rule. */
  seed(s: SeedLine): StoredLine {
    const line = { ...s, dateDebutEffet: s.dateDebutEffet ?? DEFAULT_SINCE, dateFinEffet: s.dateFinEffet ?? null };
    this.refuseOverlap(addressId(line), line);
    return structuredClone(this.insert({ ...line, creePar: s.creePar ?? 'seed' }, new Date().toISOString()));
  }

  create(
    l: Pick<StoredLine, 'siren' | 'matriculePlateforme' | 'dateDebutEffet'> &
      Partial<Pick<StoredLine, 'siret' | 'identifiantRoutage' | 'suffixeAdressage'>> & { dateFinEffet?: string },
    by: string,
    day: string,
  ): StoredLine {
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
    this.ensureDefault(l.siren);
    const line = { ...l, dateFinEffet: l.dateFinEffet ?? null };
    this.refuseOverlap(addressId(line), line);
    return this.insert({ ...line, creePar: by }, new Date().toISOString());
  }

  /** Sets (or, with null, removes) a line's end date. Past history is frozen. */
  setEnd(id: number, dateFinEffet: string | null, by: string, day: string): StoredLine {
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
    this.refuseOverlap(l.identifiantAdressage, { dateDebutEffet: l.dateDebutEffet, dateFinEffet }, id);
    l.dateFinEffet = dateFinEffet;
    l.modifications.push({ at: new Date().toISOString(), par: by, dateFinEffet });
    return l;
  }

  /**
   * Masks (cancels) a line not yet in force: it stays in the history, marked, and no longer counts. A line in force
   * or past is ended instead (its history is kept). Masking a masked line again changes nothing.
   */
  mask(id: number, by: string, day: string): StoredLine {
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
    l.masque = true;
    l.modifications.push({ at: new Date().toISOString(), par: by, dateFinEffet: l.dateFinEffet });
    return l;
  }

  save(): void {
    if (!this.file) return;
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    const state = { nextId: this.nextId, lines: this.lines, routingCodes: this.routingCodes.all() };
    fs.writeFileSync(tmp, JSON.stringify(state, null, 2));
    fs.renameSync(tmp, this.file); // atomic: a crash never leaves half a file
  }

  private refuseOverlap(
    address: string,
    period: { dateDebutEffet: string; dateFinEffet: string | null },
    except?: number,
  ) {
    // An address starts with its SIREN.
    const clash = this.candidates(address.slice(0, 9)).find(
      (o) => o.identifiantAdressage === address && o.idInstance !== except && !o.masque && overlap(o, period),
    );
    if (clash) {
      throw new Refusal(
        422,
        `la période chevauche la ligne ${clash.idInstance} (plateforme ${clash.matriculePlateforme}, du ${clash.dateDebutEffet}` +
          `${clash.dateFinEffet ? ` au ${clash.dateFinEffet}` : ''}) sur l'adresse ${address} : clôturez-la d'abord`,
      );
    }
  }

  private insert(
    l: Omit<StoredLine, 'idInstance' | 'identifiantAdressage' | 'dateDefinition' | 'modifications' | 'dateFinEffet'> & {
      dateFinEffet?: string | null;
    },
    at: string,
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
    this.index(line);
    return line;
  }

  private index(line: StoredLine): void {
    this.lines.push(line);
    this.byIdInstance.set(line.idInstance, line);
    const ofSiren = this.bySiren.get(line.siren);
    if (ofSiren) ofSiren.push(line);
    else this.bySiren.set(line.siren, [line]);
  }
}
