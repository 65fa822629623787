// The SML simulator's data: which SMP each participant id points to (one SMP per participant, as in the SML).
import { loadState, saveState } from './http';

interface Saved {
  participants: Record<string, string[]>;
}

export class SmlRegistry {
  /** Normalised participant id → SMP id. */
  private readonly owners = new Map<string, string>();

  constructor(private readonly stateFile?: string) {
    const saved = loadState<Saved>(stateFile);
    for (const [smp, ids] of Object.entries(saved?.participants ?? {})) for (const id of ids) this.owners.set(id, smp);
  }

  owner(participantId: string): string | undefined {
    return this.owners.get(participantId);
  }

  add(smpId: string, participantId: string): void {
    this.owners.set(participantId, smpId);
    this.save();
  }

  remove(participantId: string): void {
    this.owners.delete(participantId);
    this.save();
  }

  of(smpId: string): string[] {
    return [...this.owners]
      .filter(([, smp]) => smp === smpId)
      .map(([id]) => id)
      .sort();
  }

  private save(): void {
    const participants: Record<string, string[]> = {};
    for (const [id, smp] of this.owners) (participants[smp] ??= []).push(id);
    saveState(this.stateFile, { participants } satisfies Saved);
  }
}
