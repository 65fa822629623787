// The outside world as the reconciliation reads it: our matricule's directory lines page by page, a SIREN's lines
// and state, our SML participants page by page, and the SML's DNS. Each call counts as one request in the run's
// figures. Calls fail with a RemoteFailure (domain/remote-failure.ts).
import type { AnnuaireLine } from '../directory/annuaire';

export interface DirectoryReader {
  /** One page of a matricule's lines whose period reaches `from` or later, in idInstance order, and their total. */
  matriculePage(q: { matricule: string; from: string; offset: number; limit: number }): Promise<{
    lines: AnnuaireLine[];
    total: number;
  }>;
  /** Every line of the SIREN reaching `from` or later, masked ones included. */
  sirenLines(siren: string, from: string): Promise<AnnuaireLine[]>;
  /** The company's administrative state in the directory (A, C); undefined when it does not know the SIREN. */
  companyState(siren: string): Promise<string | undefined>;
}

export interface SmlReader {
  listPage(next?: string): Promise<{ participants: string[]; next?: string }>;
  /** The SMP addresses the SML's DNS gives for a participant; empty when none. */
  smpUrls(participantId: string): Promise<string[]>;
}

/** What acting on a Peppol finding needs: a participant withdrawn from the Directory and the SML, or put back. */
export interface PeppolWriter {
  removeFromDirectory(participantId: string): Promise<void>;
  deleteFromSml(participantId: string): Promise<void>;
  /** Registers it again at the SML; one the SML holds already counts as done. */
  createAtSml(participantId: string): Promise<void>;
}

export interface ReconciliationPorts {
  directory: DirectoryReader;
  sml: SmlReader;
  peppol: PeppolWriter;
}

export interface ReconciliationSettings {
  matricule: string;
  ourSmpUrl: string;
  reportOnlyNights: number;
  agreeAfterMs: number;
  lookbackDays: number;
}
