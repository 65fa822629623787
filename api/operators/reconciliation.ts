// operators/v1/reconciliation: what the nightly reconciliation found and did, for the compliance team. Operators who
// decide read the runs and findings and may confirm a finding, so that the next run acts on it without waiting for
// a second run; an operator-admin may start a run at once.
import { z } from 'zod';
import type { Client } from '@temporalio/client';
import type { Db } from '../../platform/store/db';
import { getFinding, listFindings, openFindingCounts } from '../../platform/store/drift-findings';
import { decodeTimeCursor } from '../../platform/store/rows';
import { confirmDrift } from '../../domain/reconciliation/confirm';
import { recentRuns } from '../../platform/store/reconciliation-runs';
import { DRIFT_KINDS } from '../../domain/reconciliation/findings';
import { triggerReconciliation } from '../../domain/schedules';
import { DomainError } from '../../domain/errors';
import { route } from '../../web/http/route';
import * as R from '../reconciliation-schemas';
import { operator } from '../auth';

type Deps = { db: Db; temporal: Client };
const idParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });
const findingsQuery = z.strictObject({
  open: z
    .enum(['true', 'false'], { error: 'true or false' })
    .default('true')
    .transform((v) => v === 'true')
    .describe('only the open ones (default), or every finding'),
  kind: z.enum(DRIFT_KINDS, { error: `one of ${DRIFT_KINDS.join(', ')}` }).optional(),
  limit: z.coerce.number().int().min(1).max(1000, 'at most 1000').default(100),
  cursor: z
    .string()
    .max(200)
    .refine((c) => decodeTimeCursor(c) !== undefined, 'not a cursor from a previous page')
    .optional()
    .describe("the previous page's next_cursor"),
});
const confirmations = z
  .strictObject({
    ids: z
      .array(z.uuid({ error: 'must be a UUID' }))
      .min(1)
      .max(200, 'at most 200 at a time (or confirm every open finding of a kind)')
      .optional()
      .describe('these findings (at most 200: the operators’ bodies are small)'),
    kind: z
      .enum(DRIFT_KINDS, { error: `one of ${DRIFT_KINDS.join(', ')}` })
      .optional()
      .describe('every open finding of this kind (with ids: those of them of this kind)'),
  })
  .refine((b) => b.ids || b.kind, 'ids, kind, or both');

export const reconciliationRoutes = [
  route({
    method: 'get',
    path: '/operators/v1/reconciliation',
    operationId: 'reconciliationStatus',
    summary: 'The nightly reconciliation: its last runs and the open findings by kind',
    description:
      'The last 10 runs, newest first, each with its progress (lines and participants read, requests sent), whether it only reported, what it found by kind and what it did; and how many findings are open, by kind.',
    operator: 'decide',
    responses: { 200: R.reconciliationStatus },
    handle: async (_input, { db }: Deps) => ({ runs: await recentRuns(db, 10), open: await openFindingCounts(db) }),
  }),
  route({
    method: 'get',
    path: '/operators/v1/reconciliation/findings',
    operationId: 'listDriftFindings',
    summary: 'What the reconciliation found that differs from what we believe',
    description:
      'Findings, the last seen first: open ones by default, `limit` at a time (`next_cursor` gives the next page). One is acted on once two runs at least 12 h apart have seen it (`runs`, `first_seen_at`), or once confirmed.',
    operator: 'decide',
    query: findingsQuery,
    responses: { 200: R.findingList },
    handle: async ({ query }, { db }: Deps) => {
      const page = await listFindings(db, query);
      return { list: page.list, ...(page.next && { next_cursor: page.next }) };
    },
  }),
  route({
    method: 'post',
    path: '/operators/v1/reconciliation/findings/:id/confirm',
    operationId: 'confirmDriftFinding',
    summary: 'Confirm a finding: the next run acts on it without a second sighting',
    description:
      "For a finding the operator has checked (e.g. the other platform's take-over is known): the next run acts on it if it still sees it. Report-only runs still only report.",
    operator: 'decide',
    params: idParam,
    responses: { 200: R.finding },
    errors: ['not-found', 'finding-closed'],
    handle: async ({ params, res }, { db }: Deps) => {
      const [confirmed] = await confirmDrift(db, operator(res).operatorId, { ids: [params.id] });
      if (confirmed) return confirmed;
      const finding = await getFinding(db, params.id);
      if (!finding) throw new DomainError('not-found', `no finding ${params.id}`);
      if (finding.closed_at) throw new DomainError('finding-closed', 'the finding is closed already');
      return finding; // confirmed before: as it is
    },
  }),
  route({
    method: 'post',
    path: '/operators/v1/reconciliation/confirmations',
    operationId: 'confirmDriftFindings',
    summary: 'Confirm findings at volume: the listed ones, or every open one of a kind',
    description:
      'As confirming each, for many at once (a platform that took hundreds of companies over). Closed findings and those confirmed before are left as they are; the answer lists those this call confirmed. Each is in the access log.',
    operator: 'decide',
    body: confirmations,
    responses: { 200: R.confirmed },
    examples: { 'every take-over': { kind: 'moved-out' } },
    handle: async ({ body, res }, { db }: Deps) => {
      const confirmed = await confirmDrift(db, operator(res).operatorId, body);
      return { confirmed: confirmed.length, ids: confirmed.map((f) => f.id) };
    },
  }),
  route({
    method: 'post',
    path: '/operators/v1/reconciliation/runs',
    operationId: 'startReconciliation',
    summary: 'Ask for a reconciliation run now (operator-admin)',
    description:
      'Through the nightly Schedule, which skips it while a run is going (`GET /operators/v1/reconciliation` shows the run once begun). It acts as a nightly run does: report-only while the deployment is new.',
    operator: 'admin',
    responses: { 202: R.runStarted },
    errors: ['no-schedule', 'temporal-unavailable'],
    handle: async (_input, { temporal }: Deps) => {
      if (!(await triggerReconciliation(temporal)))
        throw new DomainError('no-schedule', 'the nightly reconciliation is off (RECONCILE_CRON=off)');
      return { requested: true };
    },
  }),
];
