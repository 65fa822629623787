// The nightly reconciliation, as a story: read our matricule's directory lines and look up those of ours that did
// not show while reading our SML participants and looking up those that did not show, then act on what may be acted
// on, and say what was found. Each activity reads a bounded number of pages and returns where the next one starts; the run's
// id is the Temporal run's, so a retried activity updates the same run. The Schedule never starts a run while
// one is still going (overlap: skip).
import {
  CancellationScope,
  proxyActivities,
  setCurrentDetails,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import type { ReconciliationActivities, ReconciliationInput, RunSummary } from '../contract/reconciliation';

const reading = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '2 minutes',
  // The directory may be down or throttling for a while; a night's run gives up after six hours.
  scheduleToCloseTimeout: '6 hours',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

export async function reconcile(input: ReconciliationInput = {}): Promise<RunSummary> {
  const runId = workflowInfo().runId;
  const { reportOnly } = await reading.reconcileBegin({ runId, ...(input.reportOnly && { reportOnly: true }) });
  // What the Temporal UI shows as the run's current details (kept in memory, not in the history).
  const progress = { lines: 0, participants: 0, phase: 'reading our directory lines' };
  const show = () =>
    setCurrentDetails(
      `${reportOnly ? 'Report only. ' : ''}${progress.phase}: ${progress.lines} directory lines, ` +
        `${progress.participants} SML participants read`,
    );
  const phase = (name: string) => {
    progress.phase = name;
    show();
  };
  try {
    // The directory and the SML are read side by side: the Annuaire's quota, not the SML, sets the night's length.
    phase('reading our directory lines and SML participants');
    await Promise.all([
      (async () => {
        for (let offset: number | undefined = 0; offset !== undefined;) {
          ({ next: offset } = await reading.reconcileDirectoryPages({ runId, offset }));
          progress.lines = offset ?? progress.lines;
          show();
        }
        for (let after: string | undefined = ''; after !== undefined;)
          ({ next: after } = await reading.reconcileUnseenLines({ runId, after }));
      })(),
      (async () => {
        let page: string | undefined;
        do {
          const r: { next?: string; read: number } = await reading.reconcileSmlPages({
            runId,
            ...(page && { next: page }),
          });
          page = r.next;
          progress.participants += r.read;
          show();
        } while (page !== undefined);
        for (let after: string | undefined = ''; after !== undefined;)
          ({ next: after } = await reading.reconcileUnseenParticipants({ runId, after }));
      })(),
    ]);
    phase(reportOnly ? 'done reading (report only)' : 'acting on what two runs agree on');
    const actions: Record<string, number> = {};
    if (!reportOnly)
      for (let after: string | undefined = '00000000-0000-0000-0000-000000000000'; after !== undefined;) {
        const r: { outcomes: Record<string, number>; next?: string } = await reading.reconcileAct({ runId, after });
        for (const [outcome, n] of Object.entries(r.outcomes)) actions[outcome] = (actions[outcome] ?? 0) + n;
        after = r.next;
      }
    const summary = await reading.reconcileEnd({ runId, failed: false, actions });
    phase(
      `done: ${
        Object.entries(summary.counts)
          .map(([k, n]) => `${n} ${k}`)
          .join(', ') || 'no drift'
      }`,
    );
    return summary;
  } catch (err) {
    // Even when the run was cancelled: it must not stay `running` in the operators' view.
    await CancellationScope.nonCancellable(() => reading.reconcileEnd({ runId, failed: true, actions: {} }));
    throw err; // an activity's failure fails the run, its fault in the Temporal UI
  }
}

// A run lasts minutes to hours and replays from its start: it finishes on the build that started it.
setWorkflowOptions({ versioningBehavior: 'PINNED' }, reconcile);
