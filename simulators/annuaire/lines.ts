// A directory line as the simulator keeps it, and the indexes of the lines: by idInstance, SIREN and matricule. Each
// list keeps idInstance order (insertion order), so a search pages through a SIREN's or a platform's lines without
// sorting them, and without looking at any other platform's.
import type { Addressing } from './addressing';

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
  /** Next-day visibility (visibility.ts): what reads see until a day, when a change is not visible yet. */
  before?: LineBefore;
}

export type SeedLine = Partial<
  Pick<StoredLine, 'siret' | 'identifiantRoutage' | 'suffixeAdressage' | 'dateFinEffet' | 'creePar'>
> & {
  siren: string;
  matriculePlateforme: string;
  dateDebutEffet?: string;
};

export type NewLine = Pick<StoredLine, 'siren' | 'matriculePlateforme' | 'dateDebutEffet'> &
  Partial<Pick<StoredLine, 'siret' | 'identifiantRoutage' | 'suffixeAdressage'>> & { dateFinEffet?: string | null };

/** Next-day visibility (visibility.ts): what reads see of a line until a day. */
export interface LineBefore {
  /** The first day reads see the true state. */
  until: string;
  /** The line was created that day: reads do not see it at all before `until`. */
  absent?: true;
  dateFinEffet: string | null;
  masque?: true;
}

/** Appends keeping idInstance order (a journal replayed out of order must not break paging). */
function addInOrder(list: StoredLine[], l: StoredLine): void {
  if (!list.length || list[list.length - 1]!.idInstance < l.idInstance) return void list.push(l);
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.idInstance < l.idInstance) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, l);
}

export class LineIndex {
  /** Every line, in idInstance order. */
  readonly all: StoredLine[] = [];
  private readonly byId = new Map<number, StoredLine>();
  private readonly bySiren = new Map<string, StoredLine[]>();
  private readonly byMatricule = new Map<string, StoredLine[]>();

  get(id: number): StoredLine | undefined {
    return this.byId.get(id);
  }

  ofSiren(siren: string): readonly StoredLine[] {
    return this.bySiren.get(siren) ?? [];
  }

  ofMatricule(matricule: string): readonly StoredLine[] {
    return this.byMatricule.get(matricule) ?? [];
  }

  add(line: StoredLine): void {
    addInOrder(this.all, line);
    this.byId.set(line.idInstance, line);
    for (const [map, key] of [
      [this.bySiren, line.siren],
      [this.byMatricule, line.matriculePlateforme],
    ] as const) {
      const list = map.get(key);
      if (list) addInOrder(list, line);
      else map.set(key, [line]);
    }
  }

  /** Adds a line, or sets a known one to this state (a journal record): the same object stays in every index. */
  put(line: StoredLine): void {
    const known = this.byId.get(line.idInstance);
    if (!known) return this.add(line);
    // Keys the new state lacks (masque, before) go; SIREN and matricule never change.
    for (const k of Object.keys(known)) if (!(k in line)) delete (known as unknown as Record<string, unknown>)[k];
    Object.assign(known, line);
  }
}
