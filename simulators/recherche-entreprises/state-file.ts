// Persistence that does not rewrite every company on each change (a benchmark seeds thousands one by one): a snapshot
// (`stateFile`, JSON, replaced atomically: temporary file then rename) and a journal beside it (`<stateFile>.journal`,
// one JSON record per line, each change appended in one write). A record is a company's whole new state (or its
// removal), so replaying one twice is harmless. The snapshot is rewritten once the journal has grown as large as it,
// and at a clean stop; a torn last line (the machine stopped mid-write) is dropped at load.
import fs from 'node:fs';
import path from 'node:path';

export class StateFile<S, R> {
  private readonly journal: string;
  private snapshotBytes = 0;
  private journalBytes = 0;

  constructor(private readonly file: string) {
    this.journal = `${file}.journal`;
  }

  load(): { snapshot?: S; records: R[] } {
    let snapshot: S | undefined;
    try {
      if (fs.existsSync(this.file)) {
        const text = fs.readFileSync(this.file, 'utf8');
        this.snapshotBytes = Buffer.byteLength(text);
        snapshot = JSON.parse(text) as S;
      }
    } catch (err) {
      throw new Error(`Recherche d'entreprises simulator: cannot read ${this.file}: ${(err as Error).message}`);
    }
    return { snapshot, records: this.readJournal() };
  }

  append(records: readonly R[]): void {
    if (!records.length) return;
    const text = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.appendFileSync(this.journal, text);
    this.journalBytes += Buffer.byteLength(text);
  }

  shouldCompact(): boolean {
    return this.journalBytes > 0 && this.journalBytes >= this.snapshotBytes;
  }

  hasJournal(): boolean {
    return this.journalBytes > 0;
  }

  /** The whole state as the new snapshot, then an empty journal. */
  compact(state: S): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const text = JSON.stringify(state);
    fs.writeFileSync(`${this.file}.tmp`, text);
    fs.renameSync(`${this.file}.tmp`, this.file);
    this.snapshotBytes = Buffer.byteLength(text);
    if (fs.existsSync(this.journal)) fs.truncateSync(this.journal, 0);
    this.journalBytes = 0;
  }

  private readJournal(): R[] {
    if (!fs.existsSync(this.journal)) return [];
    const buf = fs.readFileSync(this.journal);
    const records: R[] = [];
    let start = 0;
    let good = 0; // the end of the last whole record
    while (start < buf.length) {
      const nl = buf.indexOf(10, start);
      if (nl === -1) break; // torn: the last write did not finish
      const line = buf.toString('utf8', start, nl);
      start = nl + 1;
      if (line.trim()) {
        try {
          records.push(JSON.parse(line) as R);
        } catch {
          if (start < buf.length) throw new Error(`Recherche d'entreprises simulator: ${this.journal} is corrupt`);
          break; // a garbled last line is a torn one as well
        }
      }
      good = start;
    }
    if (good < buf.length) fs.truncateSync(this.journal, good); // the next append starts on a line of its own
    this.journalBytes = good;
    return records;
  }
}
