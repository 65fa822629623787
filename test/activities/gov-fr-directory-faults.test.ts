// The directory step of a real registration (API → Temporal dev server → worker → Annuaire simulator) when the
// directory misbehaves: bursts of 429/503 are retried by Temporal until it succeeds; a 422 ends the job in error
// with the PPF detail as its fault.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { temporalWorkflowId } from '../../domain/jobs/jobs';
import { startHarness, type Harness } from '../support/harness';
import { makeSiren } from '../../bin/stack/sample-parties';
import { entryState, jobWhen } from '../support/jobs';
import { approve, linesInForce, newParty, signInApp, startRegistration } from '../support/registration';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => h.sims.annuaire.setFaults(undefined));
afterAll(() => h.close());

/** A registration parked on the approval wait with its mandate signed and submitted; the directory step is next. */
async function upToApproval(siren: string) {
  const entryId = await newParty(h, siren);
  const jobId = await startRegistration(h, entryId);
  await jobWhen(h, jobId, ['WAIT']);
  await signInApp(h, entryId);
  await expect.poll(() => entryState(h, entryId), { timeout: 15_000 }).toBe('submitted');
  return { entryId, jobId };
}

/** The attempt each activity of the job last started on (workflow history): > 1 means Temporal retried it. */
async function activityAttempts(jobId: string): Promise<number[]> {
  const history = await h.client.workflow.getHandle(temporalWorkflowId(jobId)).fetchHistory();
  return (history.events ?? []).flatMap((e) =>
    e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 1] : [],
  );
}

describe('directory step under faults', () => {
  it('a burst of 429/503 answers is retried (honouring Retry-After) and the registration ends registered', async () => {
    const siren = makeSiren();
    const { entryId, jobId } = await upToApproval(siren);
    h.sims.annuaire.setFaults({ errorRates: { 429: 0.5, 503: 0.5 }, count: 3, retryAfterSeconds: 1 });
    await approve(h, entryId);
    const job = await jobWhen(h, jobId, ['OK', 'ERR'], 60_000);
    expect(job.status, JSON.stringify(job.faults)).toBe('OK');
    expect(await entryState(h, entryId)).toBe('registered');
    expect(linesInForce(h, siren).map((l) => l.matriculePlateforme)).toEqual([h.config.PA_MATRICULE]);
    expect(Math.max(...(await activityAttempts(jobId)))).toBeGreaterThanOrEqual(2);
  });

  it('a 422 from the directory ends the job in error with the PPF detail in its fault', async () => {
    const siren = makeSiren();
    const { entryId, jobId } = await upToApproval(siren);
    const detail = "la période d'effet de la ligne chevauche une ligne existante (contrôle PPF simulé)";
    h.sims.annuaire.setFaults({ status: 422, only: 'POST /ligne-annuaire', detail });
    await approve(h, entryId);
    const job = await jobWhen(h, jobId, ['OK', 'ERR'], 60_000);
    expect(job.status).toBe('ERR');
    expect(job.faults[0]).toMatchObject({
      provider: 'gov-fr.directory.register',
      code: 'annuaire-rejected',
      message: expect.stringContaining(detail),
    });
    expect(await entryState(h, entryId)).toBe('error');
    expect(await activityAttempts(jobId)).not.toContain(2); // not retried
  });
});
