// The operators' access log as CSV, for the platform's annual audit, opened in a spreadsheet: a cell that a
// spreadsheet would read as a formula (starting with =, +, -, @, a tab or a carriage return) is neutralised with a
// leading apostrophe, so that a reason or a name typed by someone can never run as one (OWASP, CSV injection).
import { stringify } from 'csv-stringify/sync';
import type { AccessLine } from '../../platform/store/operator-access-log';

const FORMULA_START = /^[=+\-@\t\r]/;

export const neutralised = (cell: string): string => (FORMULA_START.test(cell) ? `'${cell}` : cell);

export const ACCESS_LOG_COLUMNS = ['at', 'operator_id', 'operator_name', 'action', 'entry_id', 'job_id', 'detail'];

/** The rows of one page (the header with the first: `header`). */
export function accessLogCsv(lines: AccessLine[], header: boolean): string {
  const rows = lines.map((l) =>
    [
      l.at,
      l.operator_id ?? '',
      l.operator_name,
      l.action,
      l.entry_id ?? '',
      l.job_id ?? '',
      JSON.stringify(l.detail),
    ].map(neutralised),
  );
  return stringify(header ? [ACCESS_LOG_COLUMNS, ...rows] : rows, { record_delimiter: 'windows' });
}
