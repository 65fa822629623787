// Four eyes: the decision policy (domain/review/decision-policy.json by default) names the submissions an approval
// alone does not settle — a take-over, a scan, a name unlike the Annuaire's, a company not active. The first approval
// is recorded and the registration waits for a second operator's; a rejection by either ends it; the same operator
// twice is refused; one approval settles the others; and under AUTO_APPROVE there is none of it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startHarness, type Harness } from '../support/harness';
import { submittedEntry, type Submission } from '../support/review-submission';
import { jobWhen } from '../support/jobs';
import { makeSiren } from '../../bin/stack/sample-parties';
import { DEFAULT_POLICY_FILE, loadDecisionPolicy } from '../../domain/review/decision-policy';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import { JobStatus, WaitingFor } from '../../contract/search-attributes';
import { showWaitingForParked } from '../../domain/jobs/job-sweeper';
import { log } from '../support/harness';

let h: Harness;
const decision = (s: Submission) => `/apps/gov-fr/v1/entry/${s.entryId}/decision`;
const review = (s: Submission) => `/apps/gov-fr/v1/review/submissions/${s.entryId}`;
const job = async (s: Submission) => (await h.api('GET', `/transform/v1/jobs/${s.jobId}`)).body;

/** A submission for a company the Annuaire knows as `raisonSociale`, active. */
async function submitted(name: string, raisonSociale: string): Promise<Submission> {
  const siren = makeSiren();
  h.sims.annuaire.seedCompany({ siren, raisonSociale, etatAdministratif: 'A' });
  return submittedEntry(h, { name, siren });
}

beforeAll(async () => {
  h = await startHarness({ env: { DECISION_POLICY_FILE: DEFAULT_POLICY_FILE } }); // the platform's default policy
});
afterAll(() => h?.close());

describe('a submission the policy names', () => {
  it('waits after a first approval, refuses the same operator twice, and is settled by a second operator', async () => {
    const s = await submitted('Boulangerie Alpha SARL', 'PATISSERIE OMEGA'); // a name unlike the Annuaire's
    const first = await h.api('POST', decision(s), { approved: true, reason: 'name checked on the Kbis' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({
      decision: 'approved',
      awaiting: 'second-approval',
      policy_case: 'name-mismatch',
    });
    // Still waiting, for a second operator's decision; the party still submitted.
    expect(await job(s)).toMatchObject({ status: 'WAIT', waiting_for: 'second-decision' });
    // The Temporal UI says so too (the first approval's hint).
    const run = h.client.workflow.getHandle(temporalWorkflowId(s.jobId));
    await eventually(
      async () => (await run.describe()).typedSearchAttributes.get(WaitingFor) === 'second-decision',
      15_000,
      'WaitingFor second-decision',
    );
    expect((await h.api('GET', `/silo/v1/entries/${s.entryId}`)).body.state).toBe('submitted');
    const shown = (await h.api('GET', review(s))).body;
    expect(shown).toMatchObject({
      awaiting_decision: true,
      decision: null,
      four_eyes: {
        policy_case: 'name-mismatch',
        first_approval: { stage: 'first-approval', decided_by: { name: 'Test operator A' } },
      },
    });
    const listed = (await h.api('GET', '/apps/gov-fr/v1/review/submissions?first_approved=true')).body.list;
    expect(listed.map((x: any) => x.entry_id)).toContain(s.entryId);

    const again = await h.api('POST', decision(s), { approved: true });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('same-operator');

    const second = await h.api('POST', decision(s), { approved: true }, h.secondOperator);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body).toMatchObject({ decision: 'approved', policy_case: 'name-mismatch' });
    expect(second.body.awaiting).toBeUndefined();
    expect((await jobWhen(h, s.jobId, ['OK', 'ERR'])).status).toBe('OK');

    // Both approvals on record, each with its operator and the case; the access log has both.
    const decisions = (await h.api('GET', review(s))).body.decisions;
    expect(decisions.map((d: any) => [d.stage, d.decided_by.name, d.policy_case])).toEqual([
      ['final', 'Test operator B', 'name-mismatch'],
      ['first-approval', 'Test operator A', 'name-mismatch'],
    ]);
    const log = (await h.api('GET', `/operators/v1/access-log?silo_entry_id=${s.entryId}`)).body.list;
    expect(log.filter((l: any) => l.action === 'decision').map((l: any) => l.detail.stage)).toEqual([
      'first-approval',
      'final',
    ]);
  });

  it('ends at a rejection by the second operator, and the new submission starts without a first approval', async () => {
    const s = await submitted('Menuiserie Beta', 'EBENISTERIE GAMMA');
    expect((await h.api('POST', decision(s), { approved: true })).body.awaiting).toBe('second-approval');
    const rejected = await h.api(
      'POST',
      decision(s),
      { approved: false, reason: 'not the same company' },
      h.secondOperator,
    );
    expect(rejected.status).toBe(200);
    await eventually(
      async () => (await h.api('GET', `/silo/v1/entries/${s.entryId}`)).body.state === 'processing',
      15_000,
      'the rejection recorded',
    );
    expect((await job(s)).waiting_for).toBe('resubmission');
    // The rejection is the decision the signer sees; the first approval is the operators' alone.
    const meta = (await h.api('GET', `/silo/v1/entries/${s.entryId}/meta/approval-decision`)).body.value;
    expect(meta).toMatchObject({ decision: 'rejected', reason: 'not the same company' });
  });

  it('is refused a second approval by the same operator even when two approvals race', async () => {
    const s = await submitted('Quincaillerie Delta', 'DROGUERIE EPSILON');
    const [a, b] = await Promise.all([
      h.api('POST', decision(s), { approved: true }),
      h.api('POST', decision(s), { approved: true }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect([a.body.code, b.body.code]).toContain('same-operator');
    expect((await job(s)).waiting_for).toBe('second-decision');
  });
});

describe('runs parked by a build before WaitingFor', () => {
  it("are asked by the API's sweep to write it, and told of a first approval the store holds", async () => {
    const s = await submitted('Imprimerie Theta', 'TYPOGRAPHIE IOTA');
    expect((await h.api('POST', decision(s), { approved: true })).body.awaiting).toBe('second-approval');
    // Two runs as that build left them: JobStatus WAIT, no WaitingFor (on a queue no worker polls, so they stay so):
    // one in place of this job's run, one of a job the store does not know.
    await h.client.workflow.getHandle(temporalWorkflowId(s.jobId)).terminate('replaced by an earlier build’s run');
    const parked = [s.jobId, crypto.randomUUID()];
    for (const jobId of parked)
      await h.client.workflow.start('registration', {
        workflowId: temporalWorkflowId(jobId),
        taskQueue: `parked-by-an-earlier-build-${crypto.randomUUID()}`,
        args: [],
        typedSearchAttributes: [{ key: JobStatus, value: 'WAIT' }],
      });
    const query = `WaitingFor IS NULL AND JobStatus = "WAIT" AND ExecutionStatus = "Running"`;
    await eventually(
      async () => {
        const found = new Set<string>();
        for await (const wf of h.client.workflow.list({ query })) found.add(wf.workflowId);
        return parked.every((id) => found.has(temporalWorkflowId(id)));
      },
      15_000,
      'the parked runs listed',
    );
    const deps = { db: h.db, log, temporal: h.client, config: h.config };
    expect(await showWaitingForParked(deps)).toBeGreaterThanOrEqual(2);
    const signals = async (jobId: string) =>
      ((await h.client.workflow.getHandle(temporalWorkflowId(jobId)).fetchHistory()).events ?? []).flatMap((e) => {
        const a = e.workflowExecutionSignaledEventAttributes;
        return a ? [[a.signalName, JSON.parse(Buffer.from(a.input?.payloads?.[0]?.data ?? '{}').toString())]] : [];
      });
    expect(await signals(s.jobId)).toEqual([['approval', { kind: 'first-approved', partyState: 'submitted' }]]);
    expect(await signals(parked[1]!)).toEqual([['show-waiting-for', {}]]);
    for (const jobId of parked) await h.client.workflow.getHandle(temporalWorkflowId(jobId)).terminate('test done');
  });
});

describe('a submission the policy does not name', () => {
  it('is settled by one approval', async () => {
    const s = await submitted('Fromagerie Zeta SAS', 'FROMAGERIE ZETA');
    const r = await h.api('POST', decision(s), { approved: true });
    expect(r.status).toBe(200);
    expect(r.body.awaiting).toBeUndefined();
    expect((await h.api('GET', review(s))).body.four_eyes).toBeNull();
    expect((await jobWhen(h, s.jobId, ['OK', 'ERR'])).status).toBe('OK');
  });
});

describe('the policy file', () => {
  it('is the default one, naming the four cases and approving nothing automatically', () => {
    expect(loadDecisionPolicy(DEFAULT_POLICY_FILE)).toEqual({
      version: 2,
      second_approval: ['takeover', 'scan', 'name-mismatch', 'not-active'],
      overturn_window: '1h',
      auto_approve: [],
    });
  });

  it('stops the start when it is not one, naming what is wrong', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'policy-'));
    const bad = path.join(dir, 'policy.json');
    fs.writeFileSync(bad, JSON.stringify({ version: 1, second_approval: ['takeover', 'gut-feeling'] }));
    expect(() => loadDecisionPolicy(bad)).toThrow(/policy\.json: second_approval\.1: .*takeover/);
    fs.writeFileSync(bad, '{ not json');
    expect(() => loadDecisionPolicy(bad)).toThrow(/policy\.json: .*JSON/);
    expect(() => loadDecisionPolicy(path.join(dir, 'absent.json'))).toThrow(/absent\.json: ENOENT/);
  });
});

describe('under AUTO_APPROVE (the sandbox)', () => {
  it('approves on confirm, four eyes off', async () => {
    const sandbox = await startHarness({ env: { AUTO_APPROVE: 'true', DECISION_POLICY_FILE: DEFAULT_POLICY_FILE } });
    try {
      const siren = makeSiren();
      sandbox.sims.annuaire.seedCompany({ siren, raisonSociale: 'AUTRE NOM', etatAdministratif: 'A' });
      const s = await submittedEntry(sandbox, { name: 'Traiteur Eta', siren, stopAt: 'signed' });
      expect((await sandbox.api('POST', `/apps/gov-fr/v1/entry/${s.entryId}/confirm`)).status).toBe(200);
      expect((await jobWhen(sandbox, s.jobId, ['OK', 'ERR'])).status).toBe('OK');
    } finally {
      await sandbox.close();
    }
  });
});
