// The nightly reconciliation as the workflow and the worker agree on it: its input, its activities (each takes
// the run's id and a cursor, and returns the next cursor: ids only cross into the history), and the Schedule.
export interface ReconciliationInput {
  /** Only report, whatever the settings say (an operator's trial run). */
  reportOnly?: boolean;
}

export interface RunSummary {
  runId: string;
  reportOnly: boolean;
  lines: number;
  participants: number;
  /** Requests sent, by system: annuaire, sml, dns. */
  requests: Record<string, number>;
  counts: Record<string, number>;
  actions: Record<string, number>;
}

export interface ReconciliationActivities {
  reconcileBegin(input: { runId: string; reportOnly?: boolean }): Promise<{ reportOnly: boolean }>;
  /** Our matricule's directory lines from `offset`: the next offset (lines read so far), or undefined at the end. */
  reconcileDirectoryPages(input: { runId: string; offset: number }): Promise<{ next?: number }>;
  /** Our lines no page showed, after `after` (address order). */
  reconcileUnseenLines(input: { runId: string; after: string }): Promise<{ next?: string }>;
  /** Our SML List from page `next`. */
  reconcileSmlPages(input: { runId: string; next?: string }): Promise<{ next?: string; read: number }>;
  /** Our participants the List did not show, after `after`. */
  reconcileUnseenParticipants(input: { runId: string; after: string }): Promise<{ next?: string }>;
  /** Acts on the run's findings after `after` (id order): what it did by outcome, and the next cursor. */
  reconcileAct(input: { runId: string; after: string }): Promise<{ outcomes: Record<string, number>; next?: string }>;
  reconcileEnd(input: { runId: string; failed: boolean; actions: Record<string, number> }): Promise<RunSummary>;
}

export const RECONCILIATION_WORKFLOW_TYPE = 'reconcile';
export const RECONCILIATION_SCHEDULE_ID = 'nightly-reconciliation';
/** The workflow id of a run started by hand (the Schedule names its own). */
export const MANUAL_RECONCILIATION_PREFIX = 'reconciliation-manual-';
