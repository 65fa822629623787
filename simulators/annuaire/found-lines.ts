// What searches found, kept for their next pages: a client paging through a platform's 60,000 lines costs one pass
// over them, then a slice per page. An entry stays good while none of its candidates changes, whatever other
// platforms write meanwhile.
import type { StoredLine } from './lines';

export class FoundLines {
  /** Changes of lines so far, in all (`*`), by SIREN (`s…`) and by matricule (`m…`). */
  private readonly versions = new Map<string, number>();
  private readonly found = new Map<string, { version: number; lines: StoredLine[] }>();

  /** A line was written. */
  changed(l: StoredLine): void {
    for (const scope of ['*', `s${l.siren}`, `m${l.matriculePlateforme}`])
      this.versions.set(scope, (this.versions.get(scope) ?? 0) + 1);
  }

  /**
   * What `find` finds, again while the lines of `scope` (`s<SIREN>`, `m<matricule>` or `*`: where the search looks)
   * have not changed. `key` names the search and the day. A few searches are kept at once.
   */
  get(key: string, scope: string, find: () => StoredLine[]): StoredLine[] {
    const hit = this.found.get(key);
    const version = this.versions.get(scope) ?? 0;
    if (hit?.version === version) return hit.lines;
    const lines = find();
    this.found.delete(key);
    this.found.set(key, { version, lines });
    if (this.found.size > 8) this.found.delete(this.found.keys().next().value!);
    return lines;
  }
}
