// Campaigns as the API answers them: a campaign with its counts, its rows, a pre-flight verdict.
import { z } from 'zod';
import { VERDICTS } from '../domain/campaigns/verdict';
import { CAMPAIGN_COLUMNS } from '../domain/campaigns/row';
import { timestamp, uuid } from '../web/http/schema-primitives';

const VERDICT_MEANINGS =
  '`new`: on the fictive platform 9998 or in no line, registered from its start day; ' +
  '`takeover`: another platform holds its lines, which end on the start day (the mandate names that platform, from the Annuaire); ' +
  '`migrate`: a Peppol participant of the company is at another SMP, whose provider must give a migration key; ' +
  '`already-ours`: registered on this platform already; ' +
  "`blocked`: ceased, unknown to the Annuaire, another platform's line to come, or the row's own faults; " +
  '`duplicate`: the SIREN is on an earlier line, in another open campaign, or being registered';

export const verdict = z.enum(VERDICTS).describe(VERDICT_MEANINGS);

const migration = z.object({
  participant: z.string().describe('the Peppol participant, 0225:<address>'),
  smp: z.string().describe('the SMP the SML names for it: ask its provider for the migration key'),
});

const details = z
  .object({
    former_platform: z.string().optional().describe('the matricule whose lines are taken over'),
    migrations: z.array(migration).optional(),
  })
  .describe('what the registration will need');

export const campaign = z
  .object({
    id: uuid,
    key: z.string().describe('the key given at upload, or `sha256:<the file’s SHA-256>`'),
    status: z
      .enum(['checking', 'checked', 'running', 'paused', 'finished', 'cancelled'])
      .describe(
        '`checking`: the dry run is judging its rows; `checked`: each row has its verdict, ready to start; `running`: its rows are being registered; `paused`; `finished`: every registration has ended; `cancelled`',
      ),
    file: z.object({ format: z.enum(['csv', 'jsonl']), sha256: z.string(), bytes: z.number().int() }),
    rows: z.number().int().describe('companies in the file'),
    counts: z
      .record(z.string(), z.number().int())
      .describe(`rows by verdict (${VERDICTS.join(', ')}), and \`unchecked\` for those the dry run has not reached`),
    dry_run: z.object({
      rows_judged: z.number().int(),
      requests: z.object({ annuaire: z.number().int(), dns: z.number().int() }).describe('requests sent so far'),
      requests_per_row: z.object({ annuaire: z.number(), dns: z.number() }),
      remaining_s: z
        .number()
        .int()
        .describe('seconds the rows left take at the configured rates (CAMPAIGN_ANNUAIRE_RPS, CAMPAIGN_DNS_RPS)'),
    }),
    registrations: z.object({
      annuaire_requests: z
        .number()
        .int()
        .describe('an estimate of the Annuaire requests the registrations of the new, takeover and migrate rows send'),
      directory_work_s: z
        .number()
        .int()
        .describe('the seconds those take at CAMPAIGN_ANNUAIRE_RPS (signatures and decisions aside)'),
      launched: z.number().int().describe('rows given their entry and registration, once started'),
      states: z
        .record(z.string(), z.number().int())
        .describe('those rows by their party’s state: processing, submitted, registered, error…'),
      running: z.number().int().describe('their registrations still running'),
    }),
    created_at: timestamp,
    checked_at: timestamp.optional(),
    started_at: timestamp.optional(),
    finished_at: timestamp
      .optional()
      .describe(
        'when its last registration ended (cancelled: once those past the point of cancelling have ended; at once if it never started)',
      ),
  })
  .meta({ id: 'Campaign' });

export const campaignList = z.object({ list: z.array(campaign) }).meta({ id: 'CampaignList' });

const fault = z.object({
  column: z.enum([...CAMPAIGN_COLUMNS, 'row']).describe('the column at fault, or `row` for the row as a whole'),
  message: z.string(),
});

export const campaignRow = z
  .object({
    line: z.number().int().describe("the file's line the row starts on (the header is line 1)"),
    siren: z.string().optional(),
    name: z.string().optional(),
    verdict: verdict.optional().describe('absent until the dry run reaches the row'),
    reasons: z.array(z.string()).optional(),
    faults: z.array(fault).optional().describe('why the row cannot be used, by column (its verdict is `blocked`)'),
    details: details.optional(),
    entry_id: z
      .uuid()
      .optional()
      .describe('once started: the entry the row became (set its peppol-migration-key there)'),
    job_id: z.uuid().optional().describe('once started: its registration'),
    not_registered: z
      .string()
      .optional()
      .describe('once started: why the row was not registered (registered or being registered since the dry run)'),
  })
  .meta({ id: 'CampaignRow' });

export const campaignRows = z
  .object({ list: z.array(campaignRow), next_after: z.number().int().optional() })
  .meta({ id: 'CampaignRows' });

const judged = { verdict, reasons: z.array(z.string()), details: details.optional() };

export const preflight = z
  .object({
    siren: z.string(),
    ...judged,
    otherwise: z
      .object(judged)
      .optional()
      .describe('for a `duplicate` held by an open campaign: the verdict once that campaign is finished or cancelled'),
  })
  .meta({ id: 'Preflight' });

/** The media types a campaign file is read in. */
export const CSV_TYPES = ['text/csv'];
export const JSONL_TYPES = ['application/jsonl', 'application/x-ndjson', 'application/x-jsonlines'];

export const CSV_EXAMPLE =
  'siren;name;signer_given_name;signer_surname;signer_role;contact_email;sirets;start_day;former_platform\n' +
  '552032534;Boulangerie Exemple SAS;Élodie;Martin;Présidente;elodie.martin@boulangerie-exemple.fr;;;\n' +
  '732829320;Atelier Modèle SARL;Jean;Dupont;Gérant;jean.dupont@atelier-modele.fr;73282932000074;;0042\n';

export const JSONL_EXAMPLE =
  JSON.stringify({
    siren: '552032534',
    name: 'Boulangerie Exemple SAS',
    signer_given_name: 'Élodie',
    signer_surname: 'Martin',
    signer_role: 'Présidente',
    contact_email: 'elodie.martin@boulangerie-exemple.fr',
  }) +
  '\n' +
  JSON.stringify({
    siren: '732829320',
    name: 'Atelier Modèle SARL',
    signer_given_name: 'Jean',
    signer_surname: 'Dupont',
    signer_role: 'Gérant',
    contact_email: 'jean.dupont@atelier-modele.fr',
    sirets: ['73282932000074'],
    routing_codes: [{ siret: '73282932000074', code: 'ACHATS', label: 'Service achats' }],
    former_platform: '0042',
  }) +
  '\n';
