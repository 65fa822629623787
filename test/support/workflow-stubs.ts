// The real workflow code on the real dev server, with in-memory activities: what each step was asked to do and
// record, without a store, HTTP or simulators. The fake approval flag plays the store's approved decision.
import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { expect, inject } from 'vitest';
import { bundleWorkflows } from '../../worker/create-worker';
import { buildIdOf, deploymentOptions, makeCurrent } from '../../worker/versioning';
import {
  ACTIVITY_PROVIDERS,
  DIRECTORY_COVER,
  PACED_SYSTEMS,
  isApprovalWait,
  pacedQueue,
} from '../../contract/providers';
import type { SearchAttributeKey } from '@temporalio/common/lib/search-attributes';
import { JobStatus, SiloEntryId } from '../../contract/search-attributes';
import { approvalSignal } from '../../contract/signals';
import { REGISTRATION, UNREGISTRATION } from '../../contract/definitions';
import {
  AWAITING_APPROVAL,
  type JobStatusChange,
  type JournalLine,
  type OwedJournal,
  type StepCall,
} from '../../contract/journal';
import { type Definition, type Fault } from '../../contract/job';

/** One activity call, as an operator would read it in the journal. */
export interface Call {
  provider: string;
  state?: string; // silo.state's config
  lines: string[];
  status?: string;
  /** A WAIT's day (a job waiting for its changes to take effect). */
  until?: string;
  faults?: Fault[];
  requiresApproval: boolean;
  refused: boolean;
  /** When it ran (ms since the epoch). */
  at: number;
}

/** The provider of each step the tests run (lines name steps by id): the built-ins', and those of definitions started. */
const providerOf = new Map(
  [...REGISTRATION.steps, ...REGISTRATION.rescue, ...UNREGISTRATION.steps, ...UNREGISTRATION.rescue].map((s) => [
    s.id,
    s.provider,
  ]),
);
export const line = (l: JournalLine) =>
  `${providerOf.get(l.step) ?? `unknown step ${l.step}`} ${l.at} ${l.status}${l.code ? ` ${l.code}` : ''}`;

class FakeJob {
  readonly calls: Call[] = [];
  /** The store's approved decision: the test sets it before its approval hint, as the API does. */
  approved = false;
  readonly failures = new Map<string, Error>();
  /** What a provider's activity returns (silo.state: the state it set; the others nothing, by default). */
  readonly results = new Map<string, unknown>();
  /** A silo.state step for this state finishes only once the promise settles (to order it after a signal). */
  readonly holds = new Map<string, Promise<void>>();
  /** The definition the job runs, as the store holds it. */
  definition: Definition = { steps: [], rescue: [] };
  /** The store's view: the job's status, the steps whose end is recorded. */
  status = 'RUN';
  readonly ended = new Set<string>();
}

/** What a write records: its lines, the job's status it sets, whether it needs the approval recorded. */
type Recorded = { lines: JournalLine[]; status?: JobStatusChange; requiresApproval?: boolean };

/**
 * What the store derives for a step's write from the job's definition (platform/store/job-journal.ts), modelled
 * here as the tests read it: the end of an approval wait before the step, its start and end, the start of a wait
 * after it; OK after the last step, ERR after the last rescue step, WAIT before a wait, RUN after a wait.
 */
function derived(job: FakeJob, call: StepCall): Recorded {
  const { steps, rescue } = job.definition;
  const list = steps.some((s) => s.id === call.stepId) ? steps : rescue;
  const i = list.findIndex((s) => s.id === call.stepId);
  const [before, after] = [list[i - 1], list[i + 1]];
  const waitBefore = before && isApprovalWait(before) && !job.ended.has(before.id) ? before.id : undefined;
  const waitAfter = after && isApprovalWait(after) ? after.id : undefined;
  const lines: JournalLine[] = [
    ...(call.rescue?.owed ?? []),
    ...(waitBefore ? [{ step: waitBefore, at: 'end', status: 'OK' } as const] : []),
    { step: call.stepId, at: 'start', status: 'RUN' },
    { step: call.stepId, at: 'end', status: 'OK' },
    ...(waitAfter ? [{ step: waitAfter, at: 'start', status: 'RUN' } as const] : []),
  ];
  const status = !after
    ? list === steps
      ? 'OK'
      : 'ERR'
    : waitAfter
      ? 'WAIT'
      : job.status === 'WAIT'
        ? 'RUN'
        : undefined;
  return { lines, ...(status && { status: { status } }), requiresApproval: waitBefore !== undefined };
}

export class Fakes {
  private readonly jobs = new Map<string, FakeJob>();
  job(jobId: string): FakeJob {
    if (!this.jobs.has(jobId)) this.jobs.set(jobId, new FakeJob());
    return this.jobs.get(jobId)!;
  }

  private call(provider: string, jobId: string, journal: Recorded | undefined, input?: StepCall): void {
    const job = this.job(jobId);
    const refused = journal?.requiresApproval === true && !job.approved;
    job.calls.push({
      provider,
      refused,
      at: Date.now(),
      lines: (journal?.lines ?? []).map(line),
      requiresApproval: journal?.requiresApproval === true,
      ...(input && { state: configOf(job, input.stepId).state as string | undefined }),
      ...(journal?.status && { status: journal.status.status }),
      ...(journal?.status?.until && { until: journal.status.until }),
      ...(input?.rescue && { faults: input.rescue.faults }),
    });
    // As activities/journalled.ts: the step after the wait does nothing unless the approval is recorded.
    if (refused)
      throw ApplicationFailure.nonRetryable(`job ${jobId} has no approved decision recorded`, AWAITING_APPROVAL);
    const failure = job.failures.get(provider);
    if (failure) throw failure;
    for (const l of journal?.lines ?? []) if (l.at === 'end') job.ended.add(l.step);
    if (journal?.status) job.status = journal.status.status;
  }

  activities(): Record<string, (input: any) => Promise<unknown>> {
    return {
      ...Object.fromEntries(
        ACTIVITY_PROVIDERS.map((p) => [
          p,
          async (input: StepCall) => {
            const job = this.job(input.jobId);
            const state = configOf(job, input.stepId).state;
            await job.holds.get(String(state));
            this.call(p, input.jobId, derived(job, input), input);
            const result = job.results.get(p);
            return result ?? (p === 'silo.state' ? { partyState: state } : {});
          },
        ]),
      ),
      'job.journal': async (input: { jobId: string; journal: OwedJournal }) =>
        this.call('job.journal', input.jobId, { ...input.journal, lines: input.journal.owed ?? [] }),
      [DIRECTORY_COVER]: async (input: { jobId: string }) => {
        this.call(DIRECTORY_COVER, input.jobId, undefined);
        return { restored: 0 };
      },
    };
  }
}

const configOf = (job: FakeJob, stepId: string) =>
  [...job.definition.steps, ...job.definition.rescue].find((s) => s.id === stepId)?.config ?? {};

/** The built-in workflows' definitions, by workflow type. */
const BUILTINS: Record<string, Definition> = { registration: REGISTRATION, unregistration: UNREGISTRATION };

type Workflow<A> = (input: A) => Promise<unknown>;

/** A worker on its own task queue, its bundle built once for the file. */
export async function startFastWorker() {
  const address = inject('temporalAddress');
  const [workflowBundle, nativeConnection, connection] = await Promise.all([
    bundleWorkflows(),
    NativeConnection.connect({ address }),
    Connection.connect({ address }),
  ]);
  const client = new Client({ connection });
  const fakes = new Fakes();
  const taskQueue = `fast-${crypto.randomUUID()}`;
  // Versioned as the service's workers are (the workflows declare their behaviour), a deployment of its own.
  const version = { deploymentName: taskQueue, buildId: buildIdOf(workflowBundle, {}) };
  const workerDeploymentOptions = deploymentOptions(
    { TEMPORAL_DEPLOYMENT_NAME: version.deploymentName },
    version.buildId,
  );
  const activities = fakes.activities();
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle,
    activities,
    workerDeploymentOptions,
  });
  // The directory and Peppol steps run on their paced task queues (contract/providers.ts), with the same fakes.
  const paced = await Promise.all(
    PACED_SYSTEMS.map((system) =>
      Worker.create({
        connection: nativeConnection,
        taskQueue: pacedQueue(taskQueue, system),
        activities,
        workerDeploymentOptions,
      }),
    ),
  );
  const running = Promise.all([worker, ...paced].map((w) => w.run()));
  await makeCurrent(nativeConnection, { namespace: 'default', ...version });

  /** Starts a job as the API does: JobStatus RUN and the entry id set at the start. */
  async function start<A extends object>(
    workflow: Workflow<A>,
    input: Omit<A, 'jobId' | 'workspaceId' | 'entryId' | 'approvalDeadline'> & { approvalDeadline?: string },
    prepare?: (job: FakeJob) => void,
  ) {
    const jobId = crypto.randomUUID();
    const entryId = crypto.randomUUID();
    prepare?.(fakes.job(jobId));
    const { definition } = input as { definition?: Definition };
    for (const s of definition ? [...definition.steps, ...definition.rescue] : []) providerOf.set(s.id, s.provider);
    fakes.job(jobId).definition = definition ?? BUILTINS[workflow.name]!;
    // As the API starts it (showsWaitingFor; `showsWaitingFor: undefined` for a run started by a build before it).
    const job = { jobId, workspaceId: 'ws-test', entryId, approvalDeadline: '1h', showsWaitingFor: true, ...input };
    const args = [job as unknown as A] as [A];
    const handle = await client.workflow.start(workflow, {
      args,
      taskQueue,
      workflowId: `job-${jobId}`,
      typedSearchAttributes: [
        { key: JobStatus, value: 'RUN' },
        { key: SiloEntryId, value: entryId },
      ],
    });
    return { handle, job: fakes.job(jobId), entryId };
  }

  async function close() {
    for (const w of [worker, ...paced]) w.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
  }
  return { client, fakes, start, close };
}

// What a test polls and asserts on a running job.
export const attribute = async (h: WorkflowHandle, key: SearchAttributeKey<'KEYWORD'>) =>
  (await h.describe()).typedSearchAttributes.get(key);
export const status = async (h: WorkflowHandle) => (await h.describe()).status.name;
/** Polls long enough for a loaded machine (another suite may be running), briskly. */
export const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 100 });
export const events = async (h: WorkflowHandle) => (await h.fetchHistory()).events ?? [];
export const count = async (
  h: WorkflowHandle,
  kind:
    | 'activityTaskScheduledEventAttributes'
    | 'activityTaskFailedEventAttributes'
    | 'markerRecordedEventAttributes'
    | 'upsertWorkflowSearchAttributesEventAttributes'
    | 'workflowTaskFailedEventAttributes',
) => (await events(h)).filter((e) => e[kind]).length;
export const hint = {
  /** `partyState`: the state the API recorded, sent with the hint (a renewal's party stays registered). */
  confirmed: (h: WorkflowHandle, partyState?: string) =>
    h.signal(approvalSignal, { kind: 'confirmed', ...(partyState && { partyState }) }),
  firstApproved: (h: WorkflowHandle) => h.signal(approvalSignal, { kind: 'first-approved' }),
  decided: (h: WorkflowHandle, approved: boolean, partyState?: string) =>
    h.signal(approvalSignal, {
      kind: 'decided',
      approved,
      decisionId: crypto.randomUUID(),
      ...(partyState && { partyState }),
    }),
};
