// What an integrator reads of a campaign: its counts by verdict, how long its dry run and its registrations' directory
// work should take at the configured rates, and its rows — as JSON pages, or as a CSV report in a spreadsheet's
// hands (cells that would run as a formula neutralised).
import { stringify } from 'csv-stringify/sync';
import { campaignTimes, type CampaignRecord, type CampaignRowRecord } from '../../platform/store/campaigns';
import { type SignerLink } from '../../platform/store/campaign-launches';
import { neutralised } from '../operators/access-log-csv';
import type { CampaignProgress } from './progress';
import type { CampaignRow } from './row';

/**
 * How an export is written: `rfc4180` (commas, CRLF), or for a spreadsheet to open as it is, with a UTF-8 byte-order
 * mark (without it Excel reads the accents as Windows-1252): `excel` with commas, `excel-fr` with semicolons (what
 * Excel expects where the decimal separator is a comma).
 */
export const CSV_DIALECTS = ['rfc4180', 'excel', 'excel-fr'] as const;
export type CsvDialect = (typeof CSV_DIALECTS)[number];

/** Lines of CSV in `dialect`; the first page (`header`) starts with the header, after the BOM a spreadsheet needs. */
function csvOf(columns: string[], lines: string[][], header: boolean, dialect: CsvDialect): string {
  const text = stringify(header ? [columns, ...lines] : lines, {
    record_delimiter: 'windows',
    delimiter: dialect === 'excel-fr' ? ';' : ',',
  });
  return header && dialect !== 'rfc4180' ? `\uFEFF${text}` : text;
}

export interface Rates {
  annuairePerS: number;
  dnsPerS: number;
}

/**
 * Annuaire requests a row's dry run sends before any is measured: its lines, and its state when none is in force (a
 * few in a hundred).
 */
const ANNUAIRE_PER_ROW = 1.1;

/**
 * Annuaire requests a registration's directory step sends, by verdict: a search, then per address a write and its
 * read-back, the take-over's ends besides. An estimate: the SIREN's own address, one line each.
 */
const STEP_REQUESTS: Record<string, number> = { new: 3, migrate: 3, takeover: 5 };

export function campaignView(c: CampaignRecord, progress: CampaignProgress, rates: Rates) {
  const { counts } = progress;
  const checked = c.checked_rows;
  const unchecked = counts.unchecked ?? 0;
  const perRow = {
    annuaire: checked > 0 ? (c.requests.annuaire ?? 0) / checked : ANNUAIRE_PER_ROW,
    dns: checked > 0 ? (c.requests.dns ?? 0) / checked : 1,
  };
  const dryRunS = Math.max(
    (unchecked * perRow.annuaire) / rates.annuairePerS,
    (unchecked * perRow.dns) / rates.dnsPerS,
  );
  const stepRequests = Object.entries(STEP_REQUESTS).reduce((n, [v, r]) => n + (counts[v] ?? 0) * r, 0);
  return {
    id: c.id,
    key: c.key,
    status: c.status,
    file: { format: c.file_format, sha256: c.file_sha256 ?? '', bytes: Number(c.file_bytes) },
    rows: c.row_count,
    counts: { unchecked: 0, ...counts },
    dry_run: {
      rows_judged: checked,
      requests: { annuaire: c.requests.annuaire ?? 0, dns: c.requests.dns ?? 0 },
      requests_per_row: {
        annuaire: round(perRow.annuaire),
        dns: round(perRow.dns),
      },
      // A cancelled campaign's dry run stops (its batch under way aside): nothing remains.
      remaining_s: c.status === 'cancelled' ? 0 : Math.ceil(dryRunS),
    },
    registrations: {
      annuaire_requests: stepRequests,
      directory_work_s: Math.ceil(stepRequests / rates.annuairePerS),
      launched: progress.launched,
      states: progress.states,
      running: progress.running,
    },
    ...campaignTimes(c),
  };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export const REPORT_COLUMNS = [
  'line',
  'siren',
  'name',
  'verdict',
  'reasons',
  'former_platform',
  'migration_participants',
  'migration_smps',
];

/** A row as the API lists it: its line, SIREN, company name, verdict and why, and the faults by column. */
export function rowView(r: CampaignRowRecord) {
  const data = r.data as CampaignRow | null;
  const name = data?.party.name ?? r.name; // a row at fault has no data, only the name it was given
  return {
    line: r.line,
    ...(r.siren && { siren: r.siren }),
    ...(name && { name }),
    ...(r.verdict && { verdict: r.verdict }),
    ...(r.faults ? { faults: r.faults } : r.reasons && { reasons: r.reasons as string[] }),
    ...(r.details && { details: r.details }),
    ...(r.entry_id && { entry_id: r.entry_id }),
    ...(r.job_id && { job_id: r.job_id }),
    ...(r.launch_fault && { not_registered: r.launch_fault }),
  };
}

/** Rows of the report, the header with the first page (`header`). */
export function reportCsv(rows: CampaignRowRecord[], header: boolean, dialect: CsvDialect = 'rfc4180'): string {
  const lines = rows.map((r) => {
    const v = rowView(r);
    const migrations = (r.details?.migrations ?? []) as { participant: string; smp: string }[];
    const reasons = r.faults ? r.faults.map((f) => `${f.column}: ${f.message}`) : ((r.reasons ?? []) as string[]);
    return [
      String(v.line),
      v.siren ?? '',
      v.name ?? '',
      v.verdict ?? 'unchecked',
      reasons.join(' | '),
      String(r.details?.former_platform ?? ''),
      migrations.map((m) => m.participant).join(' | '),
      [...new Set(migrations.map((m) => m.smp))].join(' | '),
    ].map(neutralised);
  });
  return csvOf(REPORT_COLUMNS, lines, header, dialect);
}

export const LINK_COLUMNS = [
  'line',
  'siren',
  'name',
  'signer_given_name',
  'signer_surname',
  'contact_email',
  'state',
  'link',
  'bundle_link',
];

/**
 * The signers' links, the header with the first page (`header`): one line per registered row; `wizardUrl` makes a
 * bundle's link (one signer's companies: the same link on each of their lines).
 */
export function signerLinksCsv(
  rows: SignerLink[],
  header: boolean,
  wizardUrl: string,
  dialect: CsvDialect = 'rfc4180',
): string {
  const lines = rows.map((r) => {
    const row = r.data as CampaignRow;
    const signer = row.party.people?.[0]?.name;
    return [
      String(r.line),
      r.siren,
      row.party.name,
      signer?.given ?? '',
      signer?.surname ?? '',
      row.email,
      r.state ?? '',
      r.link_url ?? '',
      r.bundle_ref ? `${wizardUrl}/reg/bundle/${r.bundle_ref}/start` : '',
    ].map(neutralised);
  });
  return csvOf(LINK_COLUMNS, lines, header, dialect);
}
