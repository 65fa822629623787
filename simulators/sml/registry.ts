// The SML simulator's data: which SMP each participant id points to (one SMP per participant, as in the SML), and
// the migrations its owner has prepared (PrepareToMigrate), each waiting for the new SMP's Migrate.
import { loadState, saveState } from './http';

/** A prepared migration: the SMP that prepared it (the owner then) and the key it gave the company. */
export interface PendingMigration {
  smpId: string;
  key: string;
}

interface Saved {
  participants: Record<string, string[]>;
  /** Normalised participant id → its prepared migration (absent in state files written before migrations). */
  migrations?: Record<string, PendingMigration>;
}

export class SmlRegistry {
  /** Normalised participant id → SMP id. */
  private readonly owners = new Map<string, string>();
  /** Normalised participant id → its prepared migration; one per participant, as BDMSL keeps one record. */
  private readonly migrations = new Map<string, PendingMigration>();

  constructor(private readonly stateFile?: string) {
    const saved = loadState<Saved>(stateFile);
    for (const [smp, ids] of Object.entries(saved?.participants ?? {})) for (const id of ids) this.owners.set(id, smp);
    for (const [id, m] of Object.entries(saved?.migrations ?? {})) this.migrations.set(id, m);
  }

  owner(participantId: string): string | undefined {
    return this.owners.get(participantId);
  }

  add(smpId: string, participantId: string): void {
    this.owners.set(participantId, smpId);
    this.save();
  }

  /** The participant is gone, and with it any migration prepared for it. */
  remove(participantId: string): void {
    this.owners.delete(participantId);
    this.migrations.delete(participantId);
    this.save();
  }

  of(smpId: string): string[] {
    return [...this.owners]
      .filter(([, smp]) => smp === smpId)
      .map(([id]) => id)
      .sort();
  }

  pendingMigration(participantId: string): PendingMigration | undefined {
    const m = this.migrations.get(participantId);
    return m && { ...m };
  }

  /** Records (or replaces: a second PrepareToMigrate wins) the migration; the owner does not change yet. */
  prepareMigration(participantId: string, smpId: string, key: string): void {
    this.migrations.set(participantId, { smpId, key });
    this.save();
  }

  /** The participant now belongs to `newSmpId`; its migration is spent (a key serves once). */
  completeMigration(participantId: string, newSmpId: string): void {
    this.owners.set(participantId, newSmpId);
    this.migrations.delete(participantId);
    this.save();
  }

  private save(): void {
    const participants: Record<string, string[]> = {};
    for (const [id, smp] of this.owners) (participants[smp] ??= []).push(id);
    const migrations = Object.fromEntries(this.migrations);
    saveState(this.stateFile, { participants, migrations } satisfies Saved);
  }
}
