// operators/v1: the platform's operators, managed by an operator-admin (role `admin`): who they are, their
// credentials (shown once, 90 days, revocable), and the access log of what each decided and saw, as JSON pages or
// as CSV for the annual audit. No workspace key reaches any of it. The first operator-admin is created from the
// command line (npm run operator:create).
import { once } from 'node:events';
import { z } from 'zod';
import type { Db } from '../../platform/store/db';
import { OPERATOR_ROLES, listOperators } from '../../platform/store/operators';
import { ACCESS_ACTIONS, accessLog } from '../../platform/store/operator-access-log';
import { pageCursor } from '../../web/http/schema-primitives';
import { createOperator, issueCredential, withdrawCredential } from '../../domain/operators/credentials';
import { accessLogCsv } from '../../domain/operators/access-log-csv';
import { route } from '../../web/http/route';
import * as Operators from '../operator-schemas';
import { operator } from '../auth';

const operatorBody = z.strictObject({
  name: z.string().trim().min(1, 'required').max(200).describe("the person's name, as the audit shows it"),
  roles: z
    .array(z.enum(OPERATOR_ROLES))
    .min(1, 'at least one role')
    .refine((r) => new Set(r).size === r.length, 'roles must not repeat'),
});
const idParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });
const instant = z.iso.datetime({ offset: true, error: 'an ISO 8601 timestamp, e.g. 2026-01-01T00:00:00Z' }).optional();
const logFilter = {
  operator_id: z.uuid({ error: 'must be a UUID' }).optional().describe("only this operator's"),
  silo_entry_id: z.uuid({ error: 'must be a UUID' }).optional().describe('only those on this entry'),
  action: z
    .enum(ACCESS_ACTIONS)
    .optional()
    .describe('only this kind (decision: every decision, by operators and by the policy)'),
  decided_by: z
    .enum(['operator', 'policy'])
    .optional()
    .describe("decisions only: an operator's, or the decision policy's (automatic)"),
  from: instant.describe('at or after'),
  to: instant.describe('before'),
};
const logQuery = z.strictObject({
  ...logFilter,
  limit: z.coerce.number().int().min(1).max(1000, 'at most 1000').default(100),
  cursor: pageCursor.optional(),
});
const csvQuery = z.strictObject(logFilter);
const CSV_PAGE = 1000;

type Deps = { db: Db };
type LogFilter = z.output<typeof csvQuery>;
const filterOf = (q: LogFilter) => ({
  operatorId: q.operator_id,
  entryId: q.silo_entry_id,
  action: q.action,
  decidedBy: q.decided_by,
  from: q.from,
  to: q.to,
});

export const operatorRoutes = [
  route({
    method: 'get',
    path: '/operators/v1/operators',
    operationId: 'listOperators',
    summary: 'List the operators and their credentials (operator-admin)',
    description: "Every operator, with their credentials' prefixes, expiry and revocation; never a secret.",
    operator: 'admin',
    responses: { 200: Operators.operatorList },
    handle: async (_input, { db }: Deps) => ({ list: await listOperators(db) }),
  }),
  route({
    method: 'post',
    path: '/operators/v1/operators',
    operationId: 'createOperator',
    summary: 'Create an operator and their first credential (operator-admin)',
    description:
      'A named person of the compliance team: `decide` to decide on submissions, `admin` to manage operators. The credential (valid 90 days) is in this answer only; the creation is in the access log.',
    operator: 'admin',
    body: operatorBody,
    responses: { 201: Operators.createdOperator },
    examples: { 'a reviewer': { name: 'Camille Martin', roles: ['decide'] } },
    handle: ({ body, res }, { db }: Deps) => createOperator(db, operator(res).operatorId, body),
  }),
  route({
    method: 'post',
    path: '/operators/v1/operators/:id/credentials',
    operationId: 'issueCredential',
    summary: 'Issue a new credential to an operator (operator-admin)',
    description:
      "A new credential, valid 90 days (its secret in this answer only): before the last one expires, or after it was revoked. The operator's other credentials stay valid until revoked.",
    operator: 'admin',
    params: idParam,
    responses: { 201: Operators.issuedCredential },
    handle: ({ params, res }, { db }: Deps) => issueCredential(db, operator(res).operatorId, params.id),
  }),
  route({
    method: 'delete',
    path: '/operators/v1/credentials/:id',
    operationId: 'revokeCredential',
    summary: 'Revoke an operator credential, at once (operator-admin)',
    description: 'Revokes the credential and ends the review sessions it opened (a credential cannot revoke itself).',
    operator: 'admin',
    params: idParam,
    responses: { 204: null },
    errors: ['own-key'],
    handle: ({ params, res }, { db }: Deps) =>
      withdrawCredential(db, {
        by: operator(res).operatorId,
        credentialId: params.id,
        usingCredential: operator(res).credentialId,
      }),
  }),
  route({
    method: 'get',
    path: '/operators/v1/access-log',
    operationId: 'listAccessLog',
    summary: "The operators' access log: decisions and views, oldest first (operator-admin)",
    description:
      'Who decided or saw what, when: each decision, each view of a submission’s detail (the signer’s identity number), an identity image or a signed mandate, each operator and credential created or revoked. Filter by operator, entry and time; `limit` at a time (`next_cursor` gives the next page).',
    operator: 'admin',
    query: logQuery,
    responses: { 200: Operators.accessLog },
    handle: async ({ query: q }, { db }: Deps) => {
      const page = await accessLog(db, filterOf(q), { cursor: q.cursor, limit: q.limit });
      return { list: page.list, ...(page.next && { next_cursor: page.next }) };
    },
  }),
  route({
    method: 'get',
    path: '/operators/v1/access-log.csv',
    operationId: 'exportAccessLog',
    summary: "The operators' access log as CSV, for the audit (operator-admin)",
    description:
      'The same lines and filters as the JSON log, every one of them, as CSV (a header row; cells a spreadsheet would read as a formula start with an apostrophe).',
    operator: 'admin',
    query: csvQuery,
    responses: { 200: { mediaType: 'text/csv' } },
    handle: async ({ query: q, res }, { db }: Deps) => {
      res.type('text/csv; charset=utf-8').set('content-disposition', 'attachment; filename="operator-access-log.csv"');
      // Page by page: a year of decisions is never held in memory at once.
      let cursor: string | undefined;
      let first = true;
      do {
        const page = await accessLog(db, filterOf(q), { cursor, limit: CSV_PAGE });
        if (!res.write(accessLogCsv(page.list, first))) await once(res, 'drain');
        first = false;
        cursor = page.next;
      } while (cursor);
      res.end();
    },
  }),
];
