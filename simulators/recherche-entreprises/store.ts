// The simulated register: companies by SIREN, each with the folded words its text search looks at (its name, its
// directors' names), kept in memory and, given a state file, on disk (state-file.ts).
import type { StoredCompany } from './companies';
import { StateFile } from '../state-file';
import { words } from './text';

type Snapshot = { companies: StoredCompany[] };
type JournalRecord = { put: StoredCompany } | { delete: string };

/** A company and the words its text search matches. */
export interface Entry {
  company: StoredCompany;
  /** The name's words, ranked above the directors' (score). */
  nameWords: ReadonlySet<string>;
  allWords: ReadonlySet<string>;
}

export class CompanyStore {
  private readonly entries = new Map<string, Entry>();
  private readonly persisted?: StateFile<Snapshot, JournalRecord>;

  constructor(file?: string) {
    this.persisted = file
      ? new StateFile<Snapshot, JournalRecord>(file, "Recherche d'entreprises simulator")
      : undefined;
    const { snapshot, records } = this.persisted?.load() ?? { records: [] };
    snapshot?.companies.forEach((c) => this.index(c));
    records.forEach((r) => ('put' in r ? this.index(r.put) : this.entries.delete(r.delete)));
    if (this.persisted?.shouldCompact()) this.compact();
  }

  get(siren: string): StoredCompany | undefined {
    return this.entries.get(siren)?.company;
  }

  entry(siren: string): Entry | undefined {
    return this.entries.get(siren);
  }

  all(): IterableIterator<Entry> {
    return this.entries.values();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Keeps these companies (a bulk in one journal write). */
  put(companies: readonly StoredCompany[]): void {
    companies.forEach((c) => this.index(c));
    this.write(companies.map((c) => ({ put: c })));
  }

  delete(siren: string): boolean {
    if (!this.entries.delete(siren)) return false;
    this.write([{ delete: siren }]);
    return true;
  }

  /** A clean stop: the journal folded into the snapshot. */
  close(): void {
    if (this.persisted?.hasJournal()) this.compact();
  }

  private index(c: StoredCompany): void {
    const nameWords = new Set(words(c.nom_raison_sociale));
    const people = c.dirigeants.flatMap((d) =>
      d.type_dirigeant === 'personne physique' ? words(`${d.nom} ${d.prenoms}`) : words(d.denomination),
    );
    this.entries.set(c.siren, { company: c, nameWords, allWords: new Set([...nameWords, ...people]) });
  }

  private write(records: JournalRecord[]): void {
    if (!this.persisted) return;
    this.persisted.append(records);
    if (this.persisted.shouldCompact()) this.compact();
  }

  private compact(): void {
    this.persisted?.compact({ companies: [...this.entries.values()].map((e) => e.company) });
  }
}
