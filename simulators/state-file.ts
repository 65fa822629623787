// A simulator's persistence that does not rewrite the whole state on each change: the state file is a snapshot (in
// the format it always had, so older files load) and a journal beside it, `<stateFile>.journal`, takes one JSON record
// per changed thing (a line, a company, a setting), one per text line. A record is the thing's whole new state, so replaying
// one twice is harmless (a crash between a compaction's rename and its truncation). A commit's records go out in one
// append (one write: a process crash cannot split it); a torn last line (the machine stopped mid-write) is dropped at
// load. The snapshot is rewritten (compaction) once the journal has grown as large as it: a change costs its own
// record, and the state is written at most about twice over.
import fs from 'node:fs';
import path from 'node:path';

/** A snapshot `S` and a journal of records `R`. */
export class StateFile<S, R> {
  readonly journal: string;
  private snapshotBytes = 0;
  private journalBytes = 0;

  /** `owner` names the simulator in the errors ("Annuaire simulator"). */
  constructor(
    readonly file: string,
    private readonly owner: string,
  ) {
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
      throw new Error(`${this.owner}: cannot read its state file ${this.file}: ${(err as Error).message}`);
    }
    return { snapshot, records: this.readJournal() };
  }

  append(records: readonly R[]): void {
    if (!records.length) return;
    const text = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
    if (!this.journalBytes) fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.appendFileSync(this.journal, text);
    this.journalBytes += Buffer.byteLength(text);
  }

  /** The journal has grown as large as the snapshot (or there is none yet). */
  shouldCompact(): boolean {
    return this.journalBytes > 0 && this.journalBytes >= this.snapshotBytes;
  }

  hasJournal(): boolean {
    return this.journalBytes > 0;
  }

  /** Writes the whole state as the new snapshot (atomically: temp file, then rename), then empties the journal. */
  compact(state: S): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const text = JSON.stringify(state);
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, this.file);
    this.snapshotBytes = Buffer.byteLength(text);
    if (this.journalBytes || fs.existsSync(this.journal)) fs.truncateSync(this.journal, 0);
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
      const text = buf.toString('utf8', start, nl);
      start = nl + 1;
      if (text.trim()) {
        try {
          records.push(JSON.parse(text) as R);
        } catch {
          if (start < buf.length)
            throw new Error(`${this.owner}: its journal ${this.journal} is corrupt at byte ${good}`);
          break; // a garbled last line is a torn one as well
        }
      }
      good = start;
    }
    // Cut the torn tail off, so that the next append starts on a line of its own.
    if (good < buf.length) fs.truncateSync(this.journal, good);
    this.journalBytes = good;
    return records;
  }
}
