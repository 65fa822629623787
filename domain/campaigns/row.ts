// One company of a campaign file, as the integrator writes it (a CSV row or a JSON line) and as an entry will hold
// it: the party document, its invoicing addresses and its take-over consent. Each row is checked on its own with
// the rules an entry's API applies (gobl-party.ts, invoicing-addresses.ts, take-over.ts), and every fault names the
// column it is in, so that a file of 500,000 rows is corrected in one pass.
import crypto from 'node:crypto';
import { z } from 'zod';
import { DomainError } from '../errors';
import { frenchParty, type Party } from '../party/gobl-party';
import { frenchVatKey, isSiren } from '../party/french-ids';
import { parseInvoicingAddresses } from '../party/invoicing-addresses';
import { formerMatriculeFault } from '../party/take-over';

/** The columns, in the order a template lists them; the first six are required. */
export const CAMPAIGN_COLUMNS = [
  'siren',
  'name',
  'signer_given_name',
  'signer_surname',
  'signer_role',
  'contact_email',
  'signer_id_number',
  'street',
  'postcode',
  'city',
  'sirets',
  'routing_codes',
  'suffixes',
  'start_day',
  'former_platform',
] as const;
export type CampaignColumn = (typeof CAMPAIGN_COLUMNS)[number];
export const REQUIRED_COLUMNS: readonly CampaignColumn[] = CAMPAIGN_COLUMNS.slice(0, 6);

/** A header cell as a column name: case, blanks and hyphens aside (`Signer given name` is `signer_given_name`). */
export const columnName = (header: string): string =>
  header
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/** Where a row went wrong: the column, and why. */
export interface RowFault {
  column: CampaignColumn | 'row';
  message: string;
}

/** A row that passed its checks, in the form its entry takes. */
export interface CampaignRow {
  siren: string;
  party: Party;
  /** The `fr-invoicing-addresses` meta value, when the row states more than the SIREN address or a start day. */
  invoicing?: { entrust: 'all'; addresses: Record<string, unknown>[]; start?: string };
  /** The platform the row says the company leaves (`fr-former-matricule`). */
  formerPlatform?: string;
  email: string;
}

/** A row at fault keeps its SIREN and company name when they could be read, for the reports. */
export type RowOutcome = { row: CampaignRow } | { siren?: string; name?: string; faults: RowFault[] };

/**
 * Who signs a row, as a key the store can group by (a bundle: one signer's companies): the names and email, case,
 * accents and blanks aside, hashed (the store groups by it without holding another copy of them).
 */
export function signerKeyOf(row: CampaignRow): string {
  const person = row.party.people?.[0];
  const plain = (v?: string) =>
    (v ?? '').normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
  const words = [person?.name.given, person?.name.surname, row.email].map(plain).join('\n');
  return crypto.createHash('sha256').update(words).digest('hex');
}

/**
 * A number a spreadsheet stored as a number loses its leading zeros (SIREN 005520135 becomes 5520135, matricule 0042
 * becomes 42): digits fewer than `length` get them back; anything else is left for the checks to name.
 */
const withZeros = (v: string, length: number) => (/^\d+$/.test(v) && v.length < length ? v.padStart(length, '0') : v);

/** A list cell: `a|b|c` in a CSV, an array of strings in a JSON line. */
const LIST_SEPARATOR = '|';

/** The largest cell: a name or a list of addresses, never a document. */
const MAX_CELL = 4000;

const cellOf = (v: unknown): string | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t === '' ? undefined : t;
};

/**
 * Checks one record (a CSV row keyed by column, or a parsed JSON line) for the campaign's platform `us` on the day
 * `now`: the row in its entry's form, or every fault found.
 */
export function checkRow(record: Record<string, unknown>, us: string, now: Date): RowOutcome {
  const faults: RowFault[] = [];
  const fault = (column: RowFault['column'], message: string) => faults.push({ column, message });
  const cells: Partial<Record<CampaignColumn, string>> = {};
  for (const c of CAMPAIGN_COLUMNS) {
    const v = record[c];
    const cell = cellOf(v);
    const listed = Array.isArray(v) && (c === 'sirets' || c === 'suffixes' || c === 'routing_codes');
    // Blank is absent; a number or a list where a text is expected is a fault.
    if (v !== undefined && v !== null && cell === undefined && !listed && typeof v !== 'string') fault(c, 'a string');
    else if (cell && cell.length > MAX_CELL) fault(c, `at most ${MAX_CELL} characters`);
    else if (cell !== undefined) cells[c] = cell;
  }
  for (const c of REQUIRED_COLUMNS)
    if (cells[c] === undefined && !faults.some((f) => f.column === c)) fault(c, 'required');
  const siren = cells.siren && withZeros(cells.siren.replace(/\s/g, ''), 9);
  if (cells.former_platform) cells.former_platform = withZeros(cells.former_platform, 4);
  if (siren !== undefined && !isSiren(siren)) fault('siren', `${cells.siren} is not a SIREN (9 digits, Luhn)`);
  const email = cells.contact_email;
  if (email !== undefined && !z.email().safeParse(email).success)
    fault('contact_email', `${email} is not an email address`);
  if (cells.former_platform !== undefined) {
    const why = formerMatriculeFault(cells.former_platform, us);
    if (why) fault('former_platform', why);
  }
  const name = cells.name && cells.name.slice(0, 200);
  if (faults.some((f) => f.column === 'siren') || siren === undefined) return { ...(name && { name }), faults };

  const party = partyOf(siren, cells);
  const parsed = frenchParty.safeParse(party);
  // A column already at fault is not named twice (an empty name, a malformed email).
  const faulted = new Set(faults.map((f) => f.column));
  if (!parsed.success)
    for (const issue of parsed.error.issues)
      if (!faulted.has(partyColumn(issue.path))) fault(partyColumn(issue.path), issue.message);
  const { invoicing, sources, listFaults } = invoicingOf(record, cells);
  faults.push(...listFaults);
  if (invoicing && !listFaults.some((f) => f.column === 'row')) {
    try {
      parseInvoicingAddresses(siren, invoicing, { now });
    } catch (err) {
      if (!(err instanceof DomainError) || !err.facts.invalid) throw err;
      for (const issue of err.facts.invalid.error.issues) {
        const [head, index] = issue.path;
        const column = head === 'start' ? 'start_day' : head === 'addresses' ? sources[Number(index)] : undefined;
        fault(column ?? 'row', issue.message);
      }
    }
  }
  if (faults.length > 0) return { siren, ...(name && { name }), faults };
  return {
    row: {
      siren,
      party: parsed.data!,
      ...(invoicing && { invoicing }),
      ...(cells.former_platform && { formerPlatform: cells.former_platform }),
      email: email!,
    },
  };
}

/** The party document a row describes: the company, its registered office, its signer (people[0]). */
function partyOf(siren: string, c: Partial<Record<CampaignColumn, string>>): Record<string, unknown> {
  const address = {
    ...(c.street && { street: c.street }),
    ...(c.postcode && { code: c.postcode }),
    ...(c.city && { locality: c.city }),
  };
  return {
    name: c.name,
    tax_id: { country: 'FR', code: `${frenchVatKey(siren)}${siren}` },
    identities: [{ type: 'SIREN', code: siren }],
    people: [
      {
        name: { given: c.signer_given_name, surname: c.signer_surname },
        role: c.signer_role,
        ...(c.signer_id_number && { identities: [{ label: 'CNI', code: c.signer_id_number }] }),
        ...(c.contact_email && { emails: [{ addr: c.contact_email }] }),
      },
    ],
    ...(Object.keys(address).length > 0 && { addresses: [{ ...address, country: 'FR' }] }),
  };
}

const PARTY_COLUMNS: Record<string, CampaignColumn> = {
  name: 'name',
  tax_id: 'siren',
  identities: 'siren',
  'people.0.name.given': 'signer_given_name',
  'people.0.name.surname': 'signer_surname',
  'people.0.name': 'signer_given_name',
  'people.0.role': 'signer_role',
  'people.0.identities': 'signer_id_number',
  'people.0.emails': 'contact_email',
  'addresses.0.street': 'street',
  'addresses.0.code': 'postcode',
  'addresses.0.locality': 'city',
};

/** The column a party document's fault comes from: its path's longest known prefix. */
function partyColumn(path: readonly PropertyKey[]): RowFault['column'] {
  for (let n = path.length; n > 0; n--) {
    const column = PARTY_COLUMNS[path.slice(0, n).map(String).join('.')];
    if (column) return column;
  }
  return 'row';
}

type Cells = Partial<Record<CampaignColumn, string>>;

/**
 * The invoicing addresses a row states, as the meta value an entry takes (the SIREN's own address first, since a
 * stated list replaces the default), with the column each address came from; none when the row states nothing.
 */
function invoicingOf(record: Record<string, unknown>, cells: Cells) {
  const listFaults: RowFault[] = [];
  const list = (c: 'sirets' | 'suffixes' | 'routing_codes'): unknown[] => {
    const v = record[c];
    if (Array.isArray(v)) return v;
    return (
      cells[c]
        ?.split(LIST_SEPARATOR)
        .map((s) => s.trim())
        .filter(Boolean) ?? []
    );
  };
  const addresses: Record<string, unknown>[] = [{}];
  const sources: CampaignColumn[] = ['siren'];
  // An item that cannot be read is its column's fault; the others are still checked (sources[i] is addresses[i]'s).
  const add = (column: CampaignColumn, address: Record<string, unknown>) => {
    addresses.push(address);
    sources.push(column);
  };
  for (const s of list('sirets')) {
    if (typeof s !== 'string') listFaults.push({ column: 'sirets', message: 'a list of SIRETs (strings)' });
    else add('sirets', { siret: withZeros(s.replace(/\s/g, ''), 14) });
  }
  for (const r of list('routing_codes')) {
    const code = routingCodeOf(r);
    if (typeof code === 'string') listFaults.push({ column: 'routing_codes', message: code });
    else add('routing_codes', { siret: code.siret, routing_code: { id: code.id, label: code.label } });
  }
  for (const s of list('suffixes')) {
    if (typeof s !== 'string') listFaults.push({ column: 'suffixes', message: 'a list of suffixes (strings)' });
    else add('suffixes', { suffix: s });
  }
  if (addresses.length > 101) listFaults.push({ column: 'row', message: 'at most 100 addresses besides the SIREN' });
  if (addresses.length === 1 && !cells.start_day) return { sources, listFaults };
  const invoicing = {
    entrust: 'all' as const,
    // The SIREN's own address is the empty object: no SIRET, no suffix.
    addresses,
    ...(cells.start_day && { start: cells.start_day }),
  };
  return { invoicing, sources, listFaults };
}

/** `SIRET/CODE:Label` in a CSV; { siret, code, label } in a JSON line. A string explains what is wrong. */
function routingCodeOf(v: unknown): { siret: string; id: string; label: string } | string {
  const shape = 'a routing code is SIRET/CODE:Label (e.g. 65201405100344/ACHATS:Service achats)';
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    if (typeof o.siret === 'string' && typeof o.code === 'string' && typeof o.label === 'string')
      return { siret: o.siret.replace(/\s/g, ''), id: o.code.trim(), label: o.label.trim() };
    return 'a routing code is { "siret", "code", "label" }';
  }
  if (typeof v !== 'string') return shape;
  const m = /^([^/]+)\/([^:]+):(.+)$/.exec(v);
  return m ? { siret: m[1]!.replace(/\s/g, ''), id: m[2]!.trim(), label: m[3]!.trim() } : shape;
}
