// OpenTelemetry tracing across API → workflow → activities: one trace from the HTTP request that starts a job to
// the workflow and each activity it runs (Temporal's interceptors carry the context through the workflow headers).
import crypto from 'node:crypto';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness';
import { makeSiren, party } from '../../../bin/stack/sample-parties';
import { createWorkflow, jobWhen, setState, startJob } from '../../support/jobs';

const spans = new InMemorySpanExporter();
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tracing: spans });
});
afterAll(() => h?.close());

describe('tracing', () => {
  it('follows a job from the API request through the workflow into its activities', async () => {
    const entryId = crypto.randomUUID();
    await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(makeSiren()) });
    const wf = await createWorkflow(h, [setState('processing'), setState('completed')]);
    spans.reset();
    const jobId = await startJob(h, wf, entryId);
    expect((await jobWhen(h, jobId, ['OK', 'ERR'])).status).toBe('OK');

    const request = await expect
      .poll(() => spans.getFinishedSpans().find((s) => s.name === 'POST /transform/v1/jobs'), { timeout: 10_000 })
      .toBeDefined()
      .then(() => spans.getFinishedSpans().find((s) => s.name === 'POST /transform/v1/jobs')!);
    const traceId = request.spanContext().traceId;
    const inTrace = () =>
      spans
        .getFinishedSpans()
        .filter((s) => s.spanContext().traceId === traceId)
        .map((s) => s.name);
    await expect
      .poll(inTrace, { timeout: 10_000 })
      .toEqual(
        expect.arrayContaining(['StartWorkflow:runDefinition', 'RunWorkflow:runDefinition', 'RunActivity:silo.state']),
      );
    expect(inTrace().filter((n) => n === 'RunActivity:silo.state')).toHaveLength(2);
    expect(request.attributes['http.route']).toBe('/transform/v1/jobs');
    // Ids only in span names and attributes: no party data.
    expect(JSON.stringify(spans.getFinishedSpans().map((s) => [s.name, s.attributes]))).not.toContain('Boulangerie');
  });
});
