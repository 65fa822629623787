// Helpers to run definitions through the real API and wait on the real workflow.
import crypto from 'node:crypto';
import { expect } from 'vitest';
import { eventually, type Harness } from './harness';
import { makeSiren, party } from '../../bin/stack/sample-parties';

export const step = (provider: string, config?: Record<string, unknown>, name = provider) => ({
  id: crypto.randomUUID(),
  name,
  provider,
  ...(config && { config }),
});
export const setState = (state: string) => step('silo.state', { state }, `Set state ${state}`);

export async function createEntry(h: Harness, siren = makeSiren()): Promise<string> {
  const id = crypto.randomUUID();
  const r = await h.api('PUT', `/silo/v1/entries/${id}`, { data: party(siren) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return id;
}

export async function createWorkflow(
  h: Harness,
  steps: unknown[],
  rescue: unknown[] = [setState('error')],
): Promise<string> {
  const id = crypto.randomUUID();
  const r = await h.api('PUT', `/transform/v1/workflows/${id}`, {
    name: 'test workflow',
    schema: 'org/party',
    steps,
    rescue,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return id;
}

export async function startJob(h: Harness, workflowId: string, entryId: string): Promise<string> {
  const r = await h.api('POST', '/transform/v1/jobs', { workflow_id: workflowId, silo_entry_id: entryId });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return r.body.id as string;
}

export async function jobWhen(h: Harness, jobId: string, statuses: string[], timeoutMs = 30_000) {
  return eventually(
    async () => {
      const r = await h.api('GET', `/transform/v1/jobs/${jobId}`);
      return statuses.includes(r.body.status) ? r.body : undefined;
    },
    timeoutMs,
    `job ${jobId} to reach ${statuses.join('/')}`,
  );
}

export const entryState = async (h: Harness, entryId: string) =>
  (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state;
