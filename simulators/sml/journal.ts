// Persistence of the SML simulator without rewriting its whole state on each change: the state file is a snapshot
// (the format it always had, so old files load) and `<stateFile>.journal` holds one JSON record per change since.
// Start-up replays the journal over the snapshot, then compacts; a journal grown past the snapshot's size (at least
// COMPACT_MIN_BYTES) is compacted too, so the writing stays proportional to the changes (amortised).
//
// Compaction writes the new snapshot atomically (temporary file, rename) then truncates the journal. A crash between
// the two replays the old journal over the new snapshot at the next start, which is harmless as long as every record
// is a blind write (it sets values, never reads them): the caller's records must be.
import fs from 'node:fs';
import path from 'node:path';
import { loadState, saveState } from './http';

export const COMPACT_MIN_BYTES = 1 << 20;

export class Journal<Snapshot, Rec> {
  private readonly journalFile: string | undefined;
  private journalBytes = 0;
  private snapshotBytes = 0;

  /** `snapshot` gives the whole state to write on compaction. Without `stateFile`, nothing is kept. */
  constructor(
    private readonly stateFile: string | undefined,
    private readonly snapshot: () => Snapshot,
  ) {
    this.journalFile = stateFile && `${stateFile}.journal`;
  }

  /** Hands the snapshot (undefined when there is none) then each journal record to the caller; compacts if any. */
  load(restore: (saved: Snapshot | undefined) => void, apply: (rec: Rec) => void): void {
    if (!this.stateFile || !this.journalFile) return restore(undefined);
    restore(loadState<Snapshot>(this.stateFile));
    this.snapshotBytes = fs.existsSync(this.stateFile) ? fs.statSync(this.stateFile).size : 0;
    if (!fs.existsSync(this.journalFile)) return;
    const lines = fs.readFileSync(this.journalFile, 'utf8').split('\n');
    // Every record ends with a newline: the piece after the last one is empty, or a record torn by a crash.
    const tail = lines.at(-1);
    if (tail === '') lines.pop();
    const torn = tail !== '';
    let replayed = 0;
    lines.forEach((line, i) => {
      if (!line) return;
      let rec: Rec;
      try {
        rec = JSON.parse(line) as Rec;
      } catch (err) {
        if (torn && i === lines.length - 1) return; // the change it held was never acknowledged
        throw new Error(`${this.journalFile}:${i + 1}: not a JSON record (${(err as Error).message})`);
      }
      apply(rec);
      replayed++;
    });
    // Also clears a torn tail, which the next append would otherwise glue onto.
    if (replayed || torn) this.compact();
  }

  append(rec: Rec): void {
    if (!this.journalFile) return;
    const line = `${JSON.stringify(rec)}\n`;
    // A fresh data directory has no simulators/ folder until the first change.
    if (!this.journalBytes) fs.mkdirSync(path.dirname(this.journalFile), { recursive: true });
    fs.appendFileSync(this.journalFile, line);
    this.journalBytes += Buffer.byteLength(line);
    if (this.journalBytes > Math.max(COMPACT_MIN_BYTES, this.snapshotBytes)) this.compact();
  }

  /** A new snapshot (atomic), then an empty journal. */
  compact(): void {
    if (!this.stateFile || !this.journalFile) return;
    saveState(this.stateFile, this.snapshot());
    this.snapshotBytes = fs.statSync(this.stateFile).size;
    fs.writeFileSync(this.journalFile, '');
    this.journalBytes = 0;
  }
}
