// LEGACY: the interpreter of every job started before the workflow types registration, unregistration and
// runDefinition. Kept unchanged while runs of it remain (its recorded histories replay in test/workflows/replay); new jobs
// never start it. Delete it, with its journal activities, once `JobStatus IN ("RUN","WAIT") AND WorkflowType =
// "runJob"` finds nothing in the Temporal UI.
//
// The definition interpreter: one workflow run per job. It walks the steps in order, each provider step being an
// activity; on a failure it runs the definition's rescue steps and ends the job ERR with the fault.
import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { durationMs } from '../duration';
import { PROVIDERS } from '../providers';
import { JobStatus, PartyState, SiloEntryId, Siren } from '../search-attributes';
import { approvalSignal, progressQuery, type JobProgress } from '../signals';
import {
  INTERPRETER_REVISION,
  type ApprovalSignal,
  type EventStatus,
  type Fault,
  type JobStatus as JobStatusValue,
  type LegacyJobInput,
  type Step,
  type StepInput,
  type StepJournal,
} from '../types';

export { approvalSignal, progressQuery } from '../signals';

export interface JobResult {
  status: 'OK' | 'ERR';
  faults: Fault[];
}

/** The local activities this legacy workflow journals with; activities/journal.ts implements them. */
export interface JournalActivities {
  journalStep(j: StepJournal): Promise<void>;
  journalJob(j: { jobId: string; status: JobStatusValue; faults?: Fault[] }): Promise<void>;
}

const journal = proxyLocalActivities<JournalActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

/** Journals one event of the current step. */
type Recorder = (status: EventStatus, completed: boolean, extra?: { code?: string; message?: string }) => Promise<void>;

/** A step failure carrying the fault the job will show. */
class StepFault extends Error {
  constructor(readonly fault: Fault) {
    super(fault.message);
  }
}

export async function runJob(input: LegacyJobInput): Promise<JobResult> {
  const progress: JobProgress = { status: 'RUN', submitted: false };
  const approvals: ApprovalSignal[] = [];
  setHandler(approvalSignal, (s) => void approvals.push(s));
  setHandler(progressQuery, () => progress);

  let eventIdx = 0;
  let position = 0;
  const faults: Fault[] = []; // the job's faults so far; rescue steps receive them

  // A run started with the current revision takes today's paths without patched(): each patch marker also upserts
  // TemporalChangeVersion, one more visibility write per run. Older runs ask, and replay as recorded.
  const current = (input.revision ?? 0) >= INTERPRETER_REVISION;

  // Search attributes are upserted together when the workflow task ends (before an activity, a wait or the end):
  // local activities keep the task open, so operators see the same thing, with fewer history events and
  // visibility writes. Histories from before this change upsert each one at once (replay).
  const batchAttributes = current || patched('batched-search-attributes');
  const pendingAttributes = new Map<typeof JobStatus | typeof PartyState, string>();
  const setAttribute = (key: typeof JobStatus | typeof PartyState, value: string) => {
    if (!batchAttributes) upsertSearchAttributes([{ key, value }]);
    else pendingAttributes.set(key, value);
  };
  const flushAttributes = () => {
    if (pendingAttributes.size === 0) return;
    upsertSearchAttributes([...pendingAttributes].map(([key, value]) => ({ key, value })));
    pendingAttributes.clear();
  };

  const setStatus = (status: JobProgress['status'], faults?: Fault[], attributeSet = false) => {
    progress.status = status;
    if (!attributeSet) setAttribute(JobStatus, status);
    return journal.journalJob({ jobId: input.jobId, status, faults }); // not async: one promise less (see runSteps)
  };

  // The start already set these (domain/jobs/jobs.ts); older histories upserted them again.
  if (!batchAttributes) {
    upsertSearchAttributes([
      { key: SiloEntryId, value: input.entryId },
      ...(input.siren ? [{ key: Siren, value: input.siren }] : []),
    ]);
  }
  await setStatus('RUN', undefined, current); // current runs: the start set JobStatus RUN

  // Runs steps in order, each journalled RUN, then OK or KO. `untilFault`: stop at the first failure (the steps),
  // or attempt every step (the rescue). Written flat on purpose: the SDK captures a stack trace for every promise a
  // workflow creates, each async helper adds promises, and the cost recurs on every run and every replay.
  const runSteps = async (steps: Step[], untilFault: boolean) => {
    for (const step of steps) {
      const pos = position++;
      const record: Recorder = (status, completed, extra = {}) =>
        journal.journalStep({
          jobId: input.jobId,
          stepId: step.id,
          position: pos,
          name: step.name,
          provider: step.provider,
          event: { idx: eventIdx++, status, ...extra },
          completed,
        });
      progress.step = { id: step.id, name: step.name, provider: step.provider };
      setCurrentDetails(`Step ${pos + 1}: ${step.name} (${step.provider})`);
      await record('RUN', false);
      try {
        const spec = PROVIDERS[step.provider];
        if (!spec) {
          throw new StepFault({
            provider: step.provider,
            code: 'provider-unknown',
            message: `step "${step.name}" uses provider "${step.provider}", which this worker does not know`,
          });
        }
        if (spec.kind === 'approval-wait') {
          await waitForApproval(step, record);
        } else {
          await callProvider(step.provider, step, step.config ?? {}, step.id);
          if (step.provider === 'silo.state') setAttribute(PartyState, String(step.config?.state));
        }
      } catch (err) {
        const fault = toFault(step, err);
        await record('KO', true, { code: fault.code, message: fault.message });
        faults.push(fault);
        if (untilFault) return;
        continue;
      }
      await record('OK', true);
    }
  };

  const callProvider = (provider: string, step: Step, config: Record<string, unknown>, stepId: string) => {
    const spec = PROVIDERS[provider];
    if (spec?.kind !== 'activity') throw new Error(`${provider} is not an activity provider`);
    const activities = proxyActivities({ ...spec.options, summary: step.summary ?? step.name });
    flushAttributes();
    const args: StepInput = {
      jobId: input.jobId,
      workspaceId: input.workspaceId,
      entryId: input.entryId,
      stepId,
      config,
      ...(faults.length > 0 && { faults }),
    };
    return activities[provider]!(args) as Promise<unknown>;
  };

  // Waits for the signer's submission and an approval decision. A rejection sends the party back to
  // `processing` and the wait goes on, until the deadline.
  const waitForApproval = async (step: Step, record: Recorder) => {
    const deadline = Date.now() + durationMs(input.approvalDeadline);
    let round = 0;
    await setStatus('WAIT');
    for (;;) {
      flushAttributes();
      const remaining = deadline - Date.now();
      if (remaining <= 0 || !(await condition(() => approvals.length > 0, remaining))) {
        throw new StepFault({
          provider: step.provider,
          code: 'approval-timeout',
          message: `no approved submission within ${input.approvalDeadline}`,
        });
      }
      const signal = approvals.shift()!;
      if (signal.kind === 'confirmed' && progress.submitted && (current || patched('ignore-repeated-confirmation'))) {
        continue; // a repeated confirmation (the API re-sends it): already under review
      } else if (signal.kind === 'confirmed') {
        round++;
        progress.submitted = true;
        await callProvider('silo.state', step, { state: 'submitted' }, `${step.id}/submitted/${round}`);
        setAttribute(PartyState, 'submitted');
        await record('WAIT', false, { code: 'submitted', message: 'submission received, awaiting approval' });
      } else if (!progress.submitted) {
        await record('WAIT', false, { code: 'decision-ignored', message: 'a decision arrived before any submission' });
      } else if (signal.approved) {
        await record('WAIT', false, {
          code: 'approved',
          message: signal.decisionId ? `decision ${signal.decisionId}` : 'approved',
        });
        break;
      } else {
        progress.submitted = false;
        await callProvider('silo.state', step, { state: 'processing' }, `${step.id}/rejected/${round}`);
        setAttribute(PartyState, 'processing');
        await record('WAIT', false, {
          code: 'rejected',
          message: signal.decisionId ? `decision ${signal.decisionId}` : 'rejected',
        });
      }
    }
    await setStatus('RUN');
  };

  await runSteps(input.definition.steps, true);
  if (faults.length === 0) {
    await setStatus('OK', []);
    flushAttributes();
    return { status: 'OK', faults: [] };
  }

  // Rescue: every rescue step is attempted; their own failures are added to the job's faults.
  setCurrentDetails(`Rescue after: ${faults[0]!.message}`);
  await runSteps(input.definition.rescue, false);
  await setStatus('ERR', faults);
  flushAttributes();
  return { status: 'ERR', faults };
}

function toFault(step: Step, err: unknown): Fault {
  if (err instanceof StepFault) return err.fault;
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    return { provider: step.provider, code: cause.type ?? 'failed', message: cause.message };
  }
  if (cause instanceof TimeoutFailure) {
    // Out of retry time: the last attempt's failure says why (the server attaches it as the cause).
    const last = cause.cause ? `: ${cause.cause.message}` : '';
    return {
      provider: step.provider,
      code: 'timeout',
      message: `step "${step.name}" timed out (${cause.timeoutType})${last}`,
    };
  }
  return { provider: step.provider, code: 'failed', message: cause instanceof Error ? cause.message : String(cause) };
}
