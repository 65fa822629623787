// The nightly reconciliation against the simulators playing the others: another platform takes a company's line
// over, the PPF ends a ceased company's lines, a participant moves to another SMP. Two runs must agree before
// anything is undone; a report-only run only reports; operators read and confirm findings.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RECONCILIATION_SCHEDULE_ID,
  RECONCILIATION_WORKFLOW_TYPE,
  type RunSummary,
} from '../../contract/reconciliation';
import { JOB_SWEEP_SCHEDULE_ID, JOB_SWEEP_WORKFLOW_TYPE } from '../../contract/job-sweep';
import { ensureSchedules } from '../../domain/schedules';
import { log, startHarness, type WorkerHarness } from '../support/harness';
import { jobWhen } from '../support/jobs';
import { startQueuedJobs } from '../../domain/jobs/jobs';
import { newParty, register } from '../support/registration';
import { makeSiren } from '../../bin/stack/sample-parties';

let h: WorkerHarness;
const sirens = {
  movedOut: makeSiren(),
  ceased: makeSiren(),
  migrated: makeSiren(),
  changed: makeSiren(),
  /** Taken over by another platform whose SMP also took its participant: both are settled, in any order. */
  leftForOther: makeSiren(),
  steady: makeSiren(),
};
const entries: Record<keyof typeof sirens, string> = {} as never;
const participant = (siren: string) => `iso6523-actorid-upis::0225:${siren}`;
const today = new Date().toISOString().slice(0, 10);
/** Two runs agree once this long lies between the first sighting and the action (12 h in production). */
const AGREE_AFTER_MS = 8_000;

async function reconcile(reportOnly = false): Promise<RunSummary> {
  return h.client.workflow.execute(RECONCILIATION_WORKFLOW_TYPE, {
    taskQueue: h.taskQueue,
    workflowId: `reconciliation-test-${crypto.randomUUID()}`,
    args: [reportOnly ? { reportOnly } : {}],
  });
}

async function admin(sim: 'annuaire' | 'sml', method: string, path: string, body?: unknown) {
  const base = sim === 'annuaire' ? new URL(h.sims.annuaire.url).origin : h.sims.sml.url;
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
}

beforeAll(async () => {
  h = await startHarness({
    env: {
      RECONCILE_REPORT_ONLY_NIGHTS: '1',
      RECONCILE_AGREE_AFTER: `${AGREE_AFTER_MS}ms`,
      RECONCILE_ANNUAIRE_RPS: '200',
    },
  });
}, 60_000);
afterAll(() => h?.close());

describe('the nightly reconciliation', () => {
  it("a deployment's first run only reports, and finds nothing where nothing changed", async () => {
    await Promise.all(
      Object.entries(sirens).map(async ([name, siren]) => {
        const entryId = await newParty(h, siren);
        expect((await register(h, entryId)).status).toBe('OK');
        entries[name as keyof typeof sirens] = entryId;
      }),
    );
    const run = await reconcile();
    expect(run).toMatchObject({ reportOnly: true, counts: {}, actions: {} });
    expect(run.lines).toBeGreaterThanOrEqual(4);
    expect(run.participants).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it('acts only once two runs agree: moved out, ceased, migrated, a line put back', async () => {
    for (const siren of [sirens.movedOut, sirens.leftForOther])
      await admin('annuaire', 'POST', '/_simulator/lines', {
        matriculePlateforme: '0099',
        siren,
        dateDebutEffet: today,
        takeOver: true,
      });
    await admin('sml', 'PUT', `/_simulator/participants/${encodeURIComponent(participant(sirens.leftForOther))}`, {
      smpId: 'OTHER-SMP',
    });
    await admin('annuaire', 'POST', `/_simulator/companies/${sirens.ceased}/cessation`, { day: today });
    await admin('sml', 'PUT', `/_simulator/participants/${encodeURIComponent(participant(sirens.migrated))}`, {
      smpId: 'OTHER-SMP',
    });
    // Our line of `changed` ended by nobody taking it over.
    const ours = h.sims.annuaire.lines().find((l) => l.siren === sirens.changed && l.matriculePlateforme === '0145')!;
    await admin('annuaire', 'PATCH', `/_simulator/lines/${ours.idInstance}`, { dateFinEffet: today });

    const first = await reconcile();
    expect(first.reportOnly).toBe(false);
    expect(first.counts).toEqual({ 'moved-out': 2, ceased: 1, 'participant-migrated': 2, 'line-changed': 1 });
    expect(first.actions).toEqual({ 'awaiting-agreement': 6 });
    const states = async () =>
      Object.fromEntries(
        await Promise.all(
          Object.entries(entries).map(async ([k, id]) => [
            k,
            (await h.api('GET', `/silo/v1/entries/${id}`)).body.state,
          ]),
        ),
      );
    expect(await states()).toEqual({
      movedOut: 'registered',
      ceased: 'registered',
      migrated: 'registered',
      changed: 'registered',
      leftForOther: 'registered',
      steady: 'registered',
    });
    // The integrator heard of it at once.
    const drift = await h.api('GET', `/events/v1/events?entry_id=${entries.movedOut}&kind=party.drift_found`);
    expect(drift.body.list[0]?.data).toMatchObject({ drift: 'moved-out', details: { platform: '0099', day: today } });

    await new Promise((r) => setTimeout(r, AGREE_AFTER_MS));
    const second = await reconcile();
    expect(second.actions).toEqual({ 'moved-out': 2, ceased: 1, migrated: 2, 'repair-queued': 1 });
    expect(await states()).toEqual({
      movedOut: 'moved-out',
      ceased: 'ceased',
      migrated: 'registered',
      changed: 'registered',
      leftForOther: 'moved-out',
      steady: 'registered',
    });
    // The line is put back by an address update of the party's, queued for the API's sweeper to start.
    expect(await startQueuedJobs({ db: h.db, temporal: h.client, log, config: h.config }, 0)).toBe(1);
    const repairs = await h.api('GET', `/transform/v1/jobs?silo_entry_id=${entries.changed}`);
    const repair = repairs.body.list.find((j: { tags: string[] }) => j.tags.includes('reconciliation'));
    expect((await jobWhen(h, repair.id, ['OK', 'ERR'], 30_000)).status).toBe('OK');
    const inForce = h.sims.annuaire
      .lines()
      .filter((l) => l.siren === sirens.changed && l.matriculePlateforme === '0145' && l.dateFinEffet === null);
    expect(inForce).toHaveLength(1);
    // Off Peppol: our SMP no longer serves them, the SML no longer lists them for us.
    for (const siren of [sirens.movedOut, sirens.ceased, sirens.migrated, sirens.leftForOther]) {
      const smp = await fetch(`${h.baseUrl}/smp/${encodeURIComponent(participant(siren))}`);
      expect(smp.status, siren).toBe(404);
    }
    expect(h.sims.sml.participants(h.config.SMP_ID)).toEqual(
      [participant(sirens.changed), participant(sirens.steady)].sort(),
    );
    expect(h.sims.sml.ownerOf(participant(sirens.migrated))).toBe('OTHER-SMP');

    // A third run finds nothing left to do, and the findings are closed with what was done.
    const third = await reconcile();
    expect(third.counts).toEqual({});
    const closed = await h.api('GET', '/operators/v1/reconciliation/findings?open=false');
    expect(closed.status).toBe(200);
    expect(closed.body.list.map((f: { kind: string; outcome: string }) => [f.kind, f.outcome]).sort()).toEqual([
      ['ceased', 'acted'],
      ['line-changed', 'acted'],
      ['moved-out', 'acted'],
      ['moved-out', 'acted'],
      ['participant-migrated', 'acted'],
      ['participant-migrated', 'acted'],
    ]);
  }, 60_000);

  it('operators see the runs and confirm a finding; integrators cannot', async () => {
    const status = await h.api('GET', '/operators/v1/reconciliation');
    expect(status.status).toBe(200);
    expect(status.body.runs.length).toBeGreaterThanOrEqual(4);
    expect(status.body.runs[0]).toMatchObject({ status: 'done', report_only: false });

    // A participant of ours the SML lost: seen once, confirmed, repaired by the next run.
    await admin('sml', 'DELETE', `/_simulator/participants/${encodeURIComponent(participant(sirens.steady))}`);
    const seen = await reconcile(true);
    expect(seen.counts).toEqual({ 'participant-missing': 1 });
    const open = await h.api('GET', '/operators/v1/reconciliation/findings?kind=participant-missing');
    const finding = open.body.list[0];
    expect(finding).toMatchObject({ subject: participant(sirens.steady), entry_id: entries.steady, runs: 1 });
    expect(
      (await h.api('POST', `/operators/v1/reconciliation/findings/${finding.id}/confirm`, undefined, h.apiKey)).status,
    ).toBe(403);
    const confirmed = await h.api('POST', `/operators/v1/reconciliation/findings/${finding.id}/confirm`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.confirmed_at).toBeDefined();
    const repaired = await reconcile();
    expect(repaired.actions).toEqual({ repaired: 1 });
    expect(h.sims.sml.ownerOf(participant(sirens.steady))).toBe(h.config.SMP_ID);
    const again = await h.api('POST', `/operators/v1/reconciliation/findings/${finding.id}/confirm`);
    expect(again.status).toBe(409);
    const none = await h.api('POST', `/operators/v1/reconciliation/findings/${crypto.randomUUID()}/confirm`);
    expect(none.status).toBe(404);

    // At volume: lines on our matricule nobody here wrote, paged through and confirmed all at once.
    const strangers = [makeSiren(), makeSiren(), makeSiren()];
    for (const siren of strangers)
      await admin('annuaire', 'POST', '/_simulator/lines', {
        matriculePlateforme: '0145',
        siren,
        dateDebutEffet: today,
        takeOver: true,
      });
    expect((await reconcile(true)).counts).toEqual({ 'line-unknown': 3 });
    const pages: string[] = [];
    let cursor = '';
    do {
      const page = await h.api('GET', `/operators/v1/reconciliation/findings?kind=line-unknown&limit=2${cursor}`);
      pages.push(...page.body.list.map((f: { subject: string }) => f.subject));
      cursor = page.body.next_cursor ? `&cursor=${page.body.next_cursor}` : '';
    } while (cursor);
    expect(pages.sort()).toEqual([...strangers].sort());
    expect((await h.api('GET', '/operators/v1/reconciliation/findings?cursor=nope')).status).toBe(400);
    expect((await h.api('POST', '/operators/v1/reconciliation/confirmations', {})).status).toBe(400);
    const all = await h.api('POST', '/operators/v1/reconciliation/confirmations', { kind: 'line-unknown' });
    expect(all.body.confirmed).toBe(3);
    const log = await h.api('GET', '/operators/v1/access-log?limit=1000');
    const confirmations = log.body.list.filter((l: { action: string }) => l.action === 'drift-confirmed');
    expect(confirmations.map((l: { detail: { subject: string } }) => l.detail.subject)).toEqual(
      expect.arrayContaining([...strangers, participant(sirens.steady)]),
    );
  }, 60_000);

  it("runs on Schedules: the nightly reconciliation, started at once by an operator-admin, and the jobs' housekeeping", async () => {
    await ensureSchedules({ temporal: h.client, log, config: h.config });
    try {
      const nightly = await h.client.schedule.getHandle(RECONCILIATION_SCHEDULE_ID).describe();
      expect(nightly.policies.overlap).toBe('SKIP');
      expect(nightly.action).toMatchObject({ workflowType: RECONCILIATION_WORKFLOW_TYPE, taskQueue: h.taskQueue });
      const housekeeping = await h.client.schedule.getHandle(JOB_SWEEP_SCHEDULE_ID).describe();
      expect(housekeeping.spec.intervals?.[0]?.every).toBe(5 * 60_000);
      expect(housekeeping.action).toMatchObject({ workflowType: JOB_SWEEP_WORKFLOW_TYPE, taskQueue: h.taskQueue });

      const runs = async () => (await h.api('GET', '/operators/v1/reconciliation')).body.runs;
      const before = (await runs()).length;
      expect((await h.api('POST', '/operators/v1/reconciliation/runs', undefined, h.secondOperator)).status).toBe(403);
      expect((await h.api('POST', '/operators/v1/reconciliation/runs')).status).toBe(202);
      await expect
        .poll(async () => (await runs()).filter((r: { status: string }) => r.status === 'done').length, {
          timeout: 30_000,
        })
        .toBe(before + 1);

      const swept = await h.client.workflow.execute(JOB_SWEEP_WORKFLOW_TYPE, {
        taskQueue: h.taskQueue,
        workflowId: `job-housekeeping-test-${crypto.randomUUID()}`,
      });
      expect(swept).toEqual({
        closed: expect.any(Number),
        asked: expect.any(Number),
        checksStarted: 0,
        runsStarted: 0,
        campaignsFinished: 0,
      });
    } finally {
      await h.client.schedule.getHandle(RECONCILIATION_SCHEDULE_ID).delete();
      await h.client.schedule.getHandle(JOB_SWEEP_SCHEDULE_ID).delete();
    }
  }, 60_000);
});
