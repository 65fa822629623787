// `gov-fr.agreement.sign` as the worker runs it: the mandate, the signer's link and the step's journal lines written
// together in one statement, or nothing at all.
import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agreementSign } from '../../activities/gov-fr-agreement';
import { journalledStatement } from '../../activities/journalled';
import { loadConfig } from '../../platform/config';
import type { Db } from '../../platform/store/db';
import { issueMandate } from '../../platform/store/mandate-numbers';
import { getEntry, insertEntry } from '../../platform/store/entries';
import { setJobStatus } from '../../platform/store/jobs';
import { recordJob } from '../../domain/jobs/record-job';
import { getJob } from '../../platform/store/job-views';
import { createWorkspace } from '../../platform/store/workspaces';
import type { StepCall } from '../../contract/journal';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { freshDb, log } from '../support/harness';

const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;
const definition = {
  steps: [
    { id: 'sign', name: 'Issue the mandate', provider: 'gov-fr.agreement.sign' },
    { id: 'wait', name: 'Approval', provider: 'gov-fr.agreement.wait.approval' },
  ],
  rescue: [],
};

describe.each(engines)('the mandate step on %s', (engine) => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: string;
  let sign: (input: StepCall) => Promise<{ mandateNumber: string; linkCreated: boolean }>;
  const today = new Date().toISOString().slice(0, 10).replaceAll('-', '');

  beforeAll(async () => {
    ({ db, drop } = await freshDb(engine));
    ws = (await createWorkspace(db, 'acme')).id;
    const config = loadConfig({ PA_SIREN: '987654325', PA_MATRICULE: '0145', WIZARD_URL: 'https://wizard.test' });
    // The step's activity as the worker builds it, before its result is cut to what the workflow needs.
    sign = journalledStatement(db, agreementSign({ db, log, config }));
  });
  afterAll(() => drop());

  const newJob = async (entryId: string) => {
    const jobId = crypto.randomUUID();
    await recordJob(db, {
      id: jobId,
      workspaceId: ws,
      workflowId: crypto.randomUUID(),
      workflowType: 'registration',
      entryId,
      docSchema: 'org/party',
      definition,
      args: {},
      tags: [],
      registers: true,
    });
    return jobId;
  };
  const input = (entryId: string, jobId: string): StepCall => ({
    jobId,
    workspaceId: ws,
    entryId,
    stepId: 'sign',
  });
  const link = async (entryId: string) =>
    (await getEntry(db, ws, entryId))!.meta.find((m) => m.key === 'approval-link');

  it("issues the mandate and this job's link with the step's journal lines, and a retry changes nothing", async () => {
    const siren = makeSiren();
    const e = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data: party(siren),
      siren,
    });
    const jobId = await newJob(e.id);

    expect(await sign(input(e.id, jobId))).toEqual({
      mandateNumber: `${siren}_987654325_${today}_01`,
      linkCreated: true,
    });
    const first = await link(e.id);
    expect(first).toMatchObject({
      value: { job_id: jobId },
      link_scope: 'public',
      link_url: `https://wizard.test/reg/${first!.ref}/start`,
    });
    expect(first!.ref).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const job = await getJob(db, ws, jobId);
    expect(job!.status).toBe('WAIT');
    expect(job!.intents.map((i) => [i.step_id, i.completed, i.events.map((x) => x.status)])).toEqual([
      ['sign', true, ['RUN', 'OK']],
      ['wait', false, ['RUN']],
    ]);

    expect(await sign(input(e.id, jobId))).toEqual({
      mandateNumber: `${siren}_987654325_${today}_01`,
      linkCreated: false,
    }); // a retry
    expect((await link(e.id))!.ref).toBe(first!.ref);

    // A later registration of the entry: its own mandate, and a new link that replaces the first.
    await setJobStatus(db, jobId, 'OK', []);
    const second = await newJob(e.id);
    expect(await sign(input(e.id, second))).toEqual({
      mandateNumber: `${siren}_987654325_${today}_02`,
      linkCreated: true,
    });
    expect(await link(e.id)).toMatchObject({ value: { job_id: second } });
    expect((await link(e.id))!.ref).not.toBe(first!.ref);
  });

  it("keeps a number issued before the PA's SIREN took the matricule's place: a retry of that job gets it back", async () => {
    const siren = makeSiren();
    const e = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data: party(siren),
      siren,
    });
    const jobId = await newJob(e.id);
    const day = new Date().toISOString().slice(0, 10);
    const issuedBefore = await issueMandate(db, { entryId: e.id, jobId, matricule: '0145', day }); // as the step did then
    expect(issuedBefore).toBe(`${siren}_0145_${today}_01`);
    expect(await sign(input(e.id, jobId))).toMatchObject({ mandateNumber: issuedBefore });
  });

  it("fails for good on an entry without a SIREN, and writes nothing, not even the journal's lines", async () => {
    const e = await insertEntry(db, {
      id: crypto.randomUUID(),
      workspaceId: ws,
      docSchema: 'org/party',
      data: party(),
    });
    const jobId = await newJob(e.id);
    const err = await sign(input(e.id, jobId)).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'siren-missing', nonRetryable: true, message: `entry ${e.id} has no SIREN` });
    const job = await getJob(db, ws, jobId);
    expect(job).toMatchObject({ status: 'QUEUED', intents: [] });
    expect(await link(e.id)).toBeUndefined();
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM mandate_numbers WHERE entry_id = $1',
      [e.id],
    );
    expect(rows[0]!.n).toBe(0);
  });
});
