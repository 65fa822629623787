// Over 300 lines on purpose (why): every route of campaigns/v1 in one declared list, as each service keeps its own.
// campaigns/v1: an integrator's customer base from one file. The upload is streamed (its own size limit, never held
// whole), each row checked and kept with its line; a dry run then judges every row as its registration will find
// it, before anything is written in the directory or on Peppol. The same engine answers for one SIREN. Started, the
// campaign is paused, resumed or cancelled here too.
import { once } from 'node:events';
import { z } from 'zod';
import type { Client } from '@temporalio/client';
import type { Response } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../../platform/config';
import type { Db } from '../../platform/store/db';
import { campaignRows, getCampaign, listCampaigns } from '../../platform/store/campaigns';
import { signerLinks } from '../../platform/store/campaign-launches';
import { progressOf } from '../../domain/campaigns/progress';
import { changeCampaign, type CampaignAction } from '../../domain/campaigns/lifecycle';
import { signerLinksCsv } from '../../domain/campaigns/report';
import { uploadCampaign } from '../../domain/campaigns/upload';
import { startCampaignCheckSoon } from '../../domain/campaigns/start-check';
import { campaignView, CSV_DIALECTS, reportCsv, rowView, type Rates } from '../../domain/campaigns/report';
import { preflight } from '../../domain/campaigns/preflight';
import type { CheckContext } from '../../domain/campaigns/check-rows';
import { VERDICTS } from '../../domain/campaigns/verdict';
import { isSiren } from '../../domain/party/french-ids';
import { formerMatriculeFault } from '../../domain/party/take-over';
import { DomainError } from '../../domain/errors';
import { route } from '../../web/http/route';
import { readingBody, streamedBody } from '../../web/http/streamed-body';
import { auth } from '../auth';
import * as C from '../campaign-schemas';

export interface CampaignDeps {
  db: Db;
  temporal: Client;
  log: Logger;
  config: Config;
  /** The dry run's engine over the API's own clients, for the pre-flight. */
  preflight: CheckContext;
}

const idParam = z.object({ id: z.uuid({ error: 'must be a UUID' }) });
const rates = (c: Config): Rates => ({ annuairePerS: c.CAMPAIGN_ANNUAIRE_RPS, dnsPerS: c.CAMPAIGN_DNS_RPS });
const REPORT_PAGE = 2000;

const exportQuery = z.strictObject({
  dialect: z
    .enum(CSV_DIALECTS)
    .default('rfc4180')
    .describe(
      '`rfc4180`: commas, CRLF; `excel`: the same with a UTF-8 byte-order mark, so that Excel reads the accents; `excel-fr`: semicolons and the mark, as French Excel opens a CSV',
    ),
});
/** A campaign file may take minutes to arrive, but its sender is never silent this long. */
const UPLOAD_IDLE_MS = 60_000;

const uploadQuery = z.strictObject({
  key: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without blanks')
    .refine((k) => !/^(sha256|uploading):/.test(k), 'keys starting sha256: or uploading: are the service’s')
    .optional()
    .describe('your key for the campaign; without one, the file’s SHA-256 identifies it'),
});

const rowsQuery = z.strictObject({
  verdict: z.enum(VERDICTS, { error: `one of ${VERDICTS.join(', ')}` }).optional(),
  after: z.coerce
    .number({ error: 'a line number' })
    .int()
    .min(0)
    .default(0)
    .describe('the line after which the page starts: the previous page’s next_after'),
  limit: z.coerce
    .number({ error: 'a number' })
    .int()
    .min(1)
    .max(1000, 'at most 1000')
    .default(100)
    .describe('rows a page: 100 unless given, at most 1,000'),
});

const preflightParams = z.object({
  siren: z
    .string()
    .refine((s) => isSiren(s), 'a SIREN: 9 digits, Luhn')
    .describe('the company'),
});
const preflightQuery = z.strictObject({
  former_platform: z
    .string()
    .optional()
    .describe('the platform the company says it leaves (checked against the Annuaire)'),
});

/** CSV pages of rows in line order, written as they are read (the header with the first page). */
async function streamPages<R extends { line: number }>(
  res: Response,
  page: (afterLine: number) => Promise<R[]>,
  csv: (rows: R[], header: boolean) => string,
): Promise<void> {
  let after = 0;
  for (let first = true; ; first = false) {
    const rows = await page(after);
    if (rows.length === 0 && !first) break;
    if (!res.write(csv(rows, first))) await once(res, 'drain');
    if (rows.length < REPORT_PAGE) break;
    after = rows.at(-1)!.line;
  }
  res.end();
}

async function found(db: Db, workspaceId: string, id: string) {
  const c = await getCampaign(db, workspaceId, id);
  if (!c) throw new DomainError('not-found', `no campaign ${id}`);
  return c;
}

export const campaignRoutes = [
  route({
    method: 'post',
    path: '/campaigns/v1/campaigns',
    operationId: 'createCampaign',
    summary: 'A campaign from a file: one company a row, each checked, then a dry run of every row',
    description:
      'The body is the file itself, streamed: CSV (`text/csv`, UTF-8 with or without BOM, `;` or `,` as the header uses, a header row naming the columns) or JSON lines (`application/jsonl`, one object a line with the same names). ' +
      `Columns: ${C.CSV_EXAMPLE.split('\n')[0]!.split(';').slice(0, 6).join(', ')} (required); signer_id_number, street, postcode, city, sirets, routing_codes (SIRET/CODE:Label), suffixes (lists separated by \`|\`), start_day (YYYY-MM-DD), former_platform (4 digits). ` +
      'A file that cannot be read as one (not UTF-8, an unknown or missing column, too large, more rows than CAMPAIGN_MAX_ROWS) is refused naming the line or the column, and nothing is kept. ' +
      'Otherwise each row is kept with its line: one with faults is `blocked`, its faults by column; the others are judged by the dry run, which starts at once (`status` `checking`, then `checked`). ' +
      'The campaign is identified by `key`, or by the file’s SHA-256: the same file sent again answers the same campaign (200).',
    scope: 'campaigns:rw',
    query: uploadQuery,
    bodyParsing: 'handler',
    otherBodies: { 'text/csv': z.string(), 'application/jsonl': z.string() },
    bodyExamples: {
      'text/csv': { 'two companies': C.CSV_EXAMPLE },
      'application/jsonl': { 'two companies': C.JSONL_EXAMPLE },
    },
    responses: { 201: C.campaign, 200: C.campaign },
    errors: [
      'invalid-file',
      'bad-encoding',
      'empty',
      'too-large',
      'campaign-key-taken',
      'unsupported-media-type',
      'request-timeout',
    ],
    handle: async ({ query, req, res }, deps: CampaignDeps) => {
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const format = C.CSV_TYPES.includes(type) ? 'csv' : C.JSONL_TYPES.includes(type) ? 'jsonl' : undefined;
      if (!format)
        throw new DomainError(
          'unsupported-media-type',
          `a campaign file is text/csv or application/jsonl, not ${type || 'a body without a content type'}`,
        );
      const { workspaceId } = auth(res);
      const { campaign, existing } = await readingBody(req, res, () =>
        uploadCampaign(deps.db, {
          workspaceId,
          format,
          ...(query.key && { key: query.key }),
          body: streamedBody(req, UPLOAD_IDLE_MS),
          limits: { maxBytes: deps.config.CAMPAIGN_FILE_MAX_BYTES, maxRows: deps.config.CAMPAIGN_MAX_ROWS },
          us: deps.config.PA_MATRICULE,
        }),
      );
      if (!existing)
        await startCampaignCheckSoon(
          { temporal: deps.temporal, log: deps.log, taskQueue: deps.config.TEMPORAL_TASK_QUEUE },
          campaign.id,
        );
      res
        .status(existing ? 200 : 201)
        .json(campaignView(campaign, await progressOf(deps.db, campaign), rates(deps.config)));
    },
  }),
  route({
    method: 'get',
    path: '/campaigns/v1/campaigns',
    operationId: 'listCampaigns',
    summary: "The workspace's campaigns, newest first",
    description: 'The last 100, each with its counts by verdict.',
    scope: 'campaigns:rw',
    responses: { 200: C.campaignList },
    handle: async ({ res }, deps: CampaignDeps) => {
      const list = await listCampaigns(deps.db, auth(res).workspaceId, 100);
      return {
        list: await Promise.all(
          list.map(async (c) => campaignView(c, await progressOf(deps.db, c), rates(deps.config))),
        ),
      };
    },
  }),
  route({
    method: 'get',
    path: '/campaigns/v1/campaigns/:id',
    operationId: 'getCampaign',
    summary: 'A campaign: its status, its counts by verdict, and how long its work should take',
    description:
      'Counts by verdict (`unchecked` while the dry run goes on), the requests the dry run sent and the seconds its remaining rows take at the configured rates, and an estimate of the directory work of its registrations.',
    scope: 'campaigns:rw',
    params: idParam,
    responses: { 200: C.campaign },
    errors: ['not-found'],
    handle: async ({ params, res }, deps: CampaignDeps) => {
      const c = await found(deps.db, auth(res).workspaceId, params.id);
      return campaignView(c, await progressOf(deps.db, c), rates(deps.config));
    },
  }),
  route({
    method: 'get',
    path: '/campaigns/v1/campaigns/:id/rows',
    operationId: 'listCampaignRows',
    summary: "A campaign's rows in line order, of one verdict if asked",
    description:
      'Each row with its verdict and why (or its faults by column), `limit` at a time from the line after `after` (`next_after` gives the next page).',
    scope: 'campaigns:rw',
    params: idParam,
    query: rowsQuery,
    responses: { 200: C.campaignRows },
    errors: ['not-found'],
    handle: async ({ params, query, res }, deps: CampaignDeps) => {
      const c = await found(deps.db, auth(res).workspaceId, params.id);
      const rows = await campaignRows(deps.db, c.id, {
        afterLine: query.after,
        limit: query.limit,
        ...(query.verdict && { verdict: query.verdict }),
      });
      return {
        list: rows.map(rowView),
        ...(rows.length === query.limit && { next_after: rows.at(-1)!.line }),
      };
    },
  }),
  route({
    method: 'get',
    path: '/campaigns/v1/campaigns/:id/report.csv',
    operationId: 'exportCampaignReport',
    summary: "The dry run's report as CSV: each row's verdict and why",
    description:
      'Every row in line order: line, SIREN, name, verdict, reasons (or faults by column), the former platform, the participants whose migration key is needed and the SMPs to ask. Cells a spreadsheet would read as a formula start with an apostrophe.',
    scope: 'campaigns:rw',
    params: idParam,
    query: exportQuery,
    responses: { 200: { mediaType: 'text/csv' } },
    errors: ['not-found'],
    handle: async ({ params, query, res }, deps: CampaignDeps) => {
      const c = await found(deps.db, auth(res).workspaceId, params.id);
      res.type('text/csv; charset=utf-8').set('content-disposition', `attachment; filename="campaign-${c.id}.csv"`);
      // Page by page: 500,000 rows are never held at once.
      await streamPages(
        res,
        (after) => campaignRows(deps.db, c.id, { afterLine: after, limit: REPORT_PAGE }),
        (rows, header) => reportCsv(rows, header, query.dialect),
      );
    },
  }),
  ...(
    [
      [
        'start',
        'startCampaign',
        'Start a checked campaign: its new, takeover and migrate rows are registered',
        'Each row judged `new`, `takeover` or `migrate` becomes an entry (its party, its invoicing addresses, the take-over consent naming the platform the Annuaire showed) and a registration of the built-in workflow, at CAMPAIGN_LAUNCH_PER_S rows a second and a lower Temporal priority than single registrations. A row registered or being registered since the dry run is left out, the reason on it. Its signers’ links: `GET …/links.csv`.',
      ],
      [
        'pause',
        'pauseCampaign',
        'Pause a running campaign: no more rows are registered until it resumes',
        'The registrations already started go on (they wait for their signers); the next rows wait.',
      ],
      ['resume', 'resumeCampaign', 'Resume a paused campaign', 'Its rows are registered again from where it stopped.'],
      [
        'cancel',
        'cancelCampaign',
        'Cancel a campaign: no more rows, and its registrations cancelled where they still may be',
        'Its registrations are cancelled as `POST /transform/v1/jobs/{id}/cancel` would, until their directory step or the operator’s approval; those past it go on. Its SIRENs are free for other campaigns.',
      ],
    ] as const
  ).map(([action, operationId, summary, description]) =>
    route({
      method: 'post',
      path: `/campaigns/v1/campaigns/:id/${action}`,
      operationId,
      summary,
      description,
      scope: 'campaigns:rw',
      params: idParam,
      responses: { 200: C.campaign },
      errors: ['not-found', 'campaign-status'],
      handle: async ({ params, res }, deps: CampaignDeps) => {
        const c = await changeCampaign(
          {
            db: deps.db,
            temporal: deps.temporal,
            log: deps.log,
            taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
            launchPerS: deps.config.CAMPAIGN_LAUNCH_PER_S,
          },
          auth(res).workspaceId,
          params.id,
          action satisfies CampaignAction,
        );
        return campaignView(c, await progressOf(deps.db, c), rates(deps.config));
      },
    }),
  ),
  route({
    method: 'get',
    path: '/campaigns/v1/campaigns/:id/links.csv',
    operationId: 'exportCampaignLinks',
    summary: 'The signers’ links of a started campaign, as CSV for a mail merge',
    description:
      'One line per registered row: line, SIREN, company, the signer’s names and contact email, the party’s state, the wizard link its registration issued (empty until its mandate is ready) and, when the signer has several companies in the campaign (same names and email), the bundle link that opens all of them in one session: send that one instead. Cells a spreadsheet would read as a formula start with an apostrophe. Links are credentials: send each to its signer only.',
    scope: 'campaigns:rw',
    params: idParam,
    query: exportQuery,
    responses: { 200: { mediaType: 'text/csv' } },
    errors: ['not-found'],
    handle: async ({ params, query, res }, deps: CampaignDeps) => {
      const c = await found(deps.db, auth(res).workspaceId, params.id);
      res
        .type('text/csv; charset=utf-8')
        .set('content-disposition', `attachment; filename="campaign-${c.id}-links.csv"`);
      await streamPages(
        res,
        (after) => signerLinks(deps.db, c.id, after, REPORT_PAGE),
        (rows, header) => signerLinksCsv(rows, header, deps.config.wizardUrl, query.dialect),
      );
    },
  }),
  route({
    method: 'get',
    path: '/campaigns/v1/preflight/:siren',
    operationId: 'preflightCompany',
    summary: 'The verdict a campaign row of this SIREN would get now',
    description:
      'The dry run for one company (its SIREN address), at once: new, takeover, migrate, already-ours, blocked or duplicate, with the reasons. Nothing is claimed or written.',
    scope: 'campaigns:rw',
    params: preflightParams,
    query: preflightQuery,
    responses: { 200: C.preflight },
    errors: ['annuaire-unavailable', 'sml-unavailable'],
    handle: async ({ params, query, res }, deps: CampaignDeps) => {
      const former = query.former_platform;
      const fault = former !== undefined && formerMatriculeFault(former, deps.config.PA_MATRICULE);
      if (fault)
        throw new DomainError('invalid-request', `invalid query.former_platform: ${fault}`, {
          field: { path: 'query.former_platform', message: fault },
        });
      return preflight(deps.preflight, auth(res).workspaceId, {
        siren: params.siren,
        ...(former && { formerPlatform: former }),
      });
    },
  }),
];
