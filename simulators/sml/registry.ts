// The SML simulator's data: which SMP each participant id points to (one SMP per participant, as in the SML), the
// migrations its owner has prepared (PrepareToMigrate), each waiting for the new SMP's Migrate, and each SMP's
// logical address (the URL its participants' NAPTR records carry). Indexed per SMP (List pages are slices) and by
// DNS label (a lookup is one map read); kept through ./journal.ts.
import { participantLabel } from './dns-name';
import { Journal } from './journal';
import { SortedIds } from './sorted-ids';

/** A prepared migration: the SMP that prepared it (the owner then) and the key it gave the company. */
export interface PendingMigration {
  smpId: string;
  key: string;
}

/** The state file (a snapshot), in the format it has always had; smpUrls came with the DNS responder. */
interface Saved {
  participants: Record<string, string[]>;
  /** Normalised participant id → its prepared migration (absent in state files written before migrations). */
  migrations?: Record<string, PendingMigration>;
  smpUrls?: Record<string, string>;
}

/** A journal record. Each is a blind write (journal.ts needs it): it sets values whatever they were. */
type Change =
  /** The participants are now the SMP's (created, seeded, migrated); any migration prepared for them is spent. */
  | { op: 'own'; smp: string; ids: string[] }
  /** The participants are gone, with their migrations. */
  | { op: 'drop'; ids: string[] }
  | { op: 'prepare'; id: string; smp: string; key: string }
  | { op: 'smpUrl'; smp: string; url: string };

/** Above this many ids, a change re-sorts the SMP indexes once on the next read rather than splicing each id. */
const BULK = 32;

export class SmlRegistry {
  /** Normalised participant id → SMP id. */
  private readonly owners = new Map<string, string>();
  /** SMP id → its participants. */
  private readonly bySmp = new Map<string, SortedIds>();
  /** DNS label (dns-name.ts) → normalised participant id. */
  private readonly byLabel = new Map<string, string>();
  /** Normalised participant id → its prepared migration; one per participant, as BDMSL keeps one record. */
  private readonly migrations = new Map<string, PendingMigration>();
  private readonly smpUrls = new Map<string, string>();
  private readonly journal: Journal<Saved, Change>;

  constructor(stateFile?: string) {
    this.journal = new Journal<Saved, Change>(stateFile, () => this.snapshot());
    this.journal.load(
      (saved) => {
        for (const [smp, ids] of Object.entries(saved?.participants ?? {})) this.apply({ op: 'own', smp, ids });
        for (const [id, m] of Object.entries(saved?.migrations ?? {})) this.migrations.set(id, m);
        for (const [smp, url] of Object.entries(saved?.smpUrls ?? {})) this.smpUrls.set(smp, url);
      },
      (change) => this.apply(change),
    );
  }

  owner(participantId: string): string | undefined {
    return this.owners.get(participantId);
  }

  /** The participant whose DNS label this is, if registered. */
  participantOfLabel(label: string): string | undefined {
    return this.byLabel.get(label);
  }

  add(smpId: string, participantId: string): void {
    this.change({ op: 'own', smp: smpId, ids: [participantId] });
  }

  /** Registers (or moves) participants for an SMP at once; any migration prepared for them is dropped. */
  seed(smpId: string, participantIds: readonly string[]): { added: number; moved: number } {
    const ids = [...new Set(participantIds)];
    let added = 0;
    let moved = 0;
    for (const id of ids) {
      const owner = this.owners.get(id);
      if (owner === undefined) added++;
      else if (owner !== smpId) moved++;
    }
    this.change({ op: 'own', smp: smpId, ids });
    return { added, moved };
  }

  /** The participant is gone, and with it any migration prepared for it. */
  remove(participantId: string): void {
    this.change({ op: 'drop', ids: [participantId] });
  }

  /** An SMP's participants, sorted. */
  of(smpId: string): string[] {
    return this.bySmp.get(smpId)?.all() ?? [];
  }

  count(smpId: string): number {
    return this.bySmp.get(smpId)?.size ?? 0;
  }

  /** `count` of an SMP's sorted participants from `start`, and how many it has. */
  page(smpId: string, start: number, count: number): { ids: string[]; total: number } {
    const idx = this.bySmp.get(smpId);
    return { ids: idx?.slice(start, count) ?? [], total: idx?.size ?? 0 };
  }

  pendingMigration(participantId: string): PendingMigration | undefined {
    const m = this.migrations.get(participantId);
    return m && { ...m };
  }

  /** Records (or replaces: a second PrepareToMigrate wins) the migration; the owner does not change yet. */
  prepareMigration(participantId: string, smpId: string, key: string): void {
    this.change({ op: 'prepare', id: participantId, smp: smpId, key });
  }

  /** The participant now belongs to `newSmpId`; its migration is spent (a key serves once). */
  completeMigration(participantId: string, newSmpId: string): void {
    this.change({ op: 'own', smp: newSmpId, ids: [participantId] });
  }

  /** The URL set for an SMP, if any. */
  smpUrl(smpId: string): string | undefined {
    return this.smpUrls.get(smpId);
  }

  setSmpUrl(smpId: string, url: string): void {
    if (this.smpUrls.get(smpId) !== url) this.change({ op: 'smpUrl', smp: smpId, url });
  }

  private change(c: Change): void {
    this.apply(c);
    this.journal.append(c);
  }

  private apply(c: Change): void {
    switch (c.op) {
      case 'own': {
        const lazy = c.ids.length > BULK;
        const to = this.index(c.smp);
        for (const id of c.ids) {
          const from = this.owners.get(id);
          if (from === undefined) this.byLabel.set(participantLabel(id.slice(id.indexOf('::') + 2)), id);
          else if (from !== c.smp) this.bySmp.get(from)?.delete(id, lazy);
          this.owners.set(id, c.smp);
          to.add(id, lazy);
          this.migrations.delete(id);
        }
        return;
      }
      case 'drop':
        for (const id of c.ids) {
          const from = this.owners.get(id);
          if (from !== undefined) {
            this.bySmp.get(from)?.delete(id);
            this.byLabel.delete(participantLabel(id.slice(id.indexOf('::') + 2)));
          }
          this.owners.delete(id);
          this.migrations.delete(id);
        }
        return;
      case 'prepare':
        this.migrations.set(c.id, { smpId: c.smp, key: c.key });
        return;
      case 'smpUrl':
        this.smpUrls.set(c.smp, c.url);
        return;
      default:
        throw new Error(`unknown SML journal record ${JSON.stringify(c)}`);
    }
  }

  private index(smpId: string): SortedIds {
    let idx = this.bySmp.get(smpId);
    if (!idx) this.bySmp.set(smpId, (idx = new SortedIds()));
    return idx;
  }

  private snapshot(): Saved {
    const participants: Record<string, string[]> = {};
    for (const [smp, idx] of this.bySmp) if (idx.size) participants[smp] = idx.all();
    return {
      participants,
      migrations: Object.fromEntries(this.migrations),
      smpUrls: Object.fromEntries(this.smpUrls),
    };
  }
}
