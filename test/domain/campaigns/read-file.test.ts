// A campaign file read as it arrives: its encoding and header refuse it whole, naming the line or the column; a
// record's own faults are that record's, with its line and column, and the rest is read.
import { describe, expect, it } from 'vitest';
import { readCampaignFile, type FileRecord, type FileTally } from '../../../domain/campaigns/read-file';
import { checkRow } from '../../../domain/campaigns/row';
import { DomainError } from '../../../domain/errors';

const HEADER = 'siren;name;signer_given_name;signer_surname;signer_role;contact_email';
const LIMITS = { maxBytes: 1_000_000, maxRows: 100 };

/** The file in chunks of `size` bytes, as a socket would hand it over. */
async function* chunked(bytes: Buffer, size = 7) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function read(text: string | Buffer, format: 'csv' | 'jsonl' = 'csv', limits = LIMITS) {
  const tally: FileTally = { sha256: '', bytes: 0, rows: 0 };
  const records: FileRecord[] = [];
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  for await (const r of readCampaignFile(chunked(bytes), format, limits, tally)) records.push(r);
  return { records, tally };
}

async function refusal(text: string | Buffer, format: 'csv' | 'jsonl' = 'csv', limits = LIMITS) {
  const err = await read(text, format, limits).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe('reading a campaign file', () => {
  it('reads a CSV with a BOM, CRLF, semicolons and quoted cells; a quote left open is its line’s fault only', async () => {
    const text =
      `\uFEFF${HEADER}\r\n` +
      '552032534;"Boulangerie ""Exemple"" SAS";Élodie;Martin;Présidente;e@x.fr\r\n' +
      '732829320;"Atelier Modèle;Jean;Dupont;Gérant;j@x.fr\r\n' +
      '552032534;Trop;de;cellules;ici;a@b.fr;en plus\r\n';
    const { records, tally } = await read(text);
    expect(records).toEqual([
      {
        line: 2,
        record: {
          siren: '552032534',
          name: 'Boulangerie "Exemple" SAS',
          signer_given_name: 'Élodie',
          signer_surname: 'Martin',
          signer_role: 'Présidente',
          contact_email: 'e@x.fr',
        },
      },
      { line: 3, faults: [{ column: 'row', message: expect.stringMatching(/^not CSV: Quote Not Closed/) }] },
      { line: 4, faults: [{ column: 'row', message: '7 cells, but the header has 6' }] },
    ]);
    expect(tally.rows).toBe(3);
    expect(tally.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(tally.bytes).toBe(Buffer.byteLength(text));
  });

  it('takes commas when the header uses them; a quote inside a cell is a character; a malformed record is its own fault', async () => {
    const comma = HEADER.replaceAll(';', ',');
    const { records } = await read(
      `${comma}\n552032534,L"Atelier,É,M,P,e@x.fr\n\n552032534,"Open,É,M,P,e@x.fr\n732829320,B,J,D,G,j@x.fr\n`,
    );
    expect(records).toEqual([
      { line: 2, record: expect.objectContaining({ name: 'L"Atelier' }) },
      { line: 4, faults: [{ column: 'row', message: expect.stringMatching(/^not CSV: /) }] },
      { line: 5, record: expect.objectContaining({ siren: '732829320' }) },
    ]);
  });

  it('refuses Windows-1252 and UTF-16, naming the first line that is not UTF-8', async () => {
    const latin1 = Buffer.concat([
      Buffer.from(`${HEADER}\n552032534;Boulangerie;`),
      Buffer.from([0xc9]), // É in Windows-1252
      Buffer.from('lodie;Martin;P;e@x.fr\n'),
    ]);
    const err = await refusal(latin1);
    expect([err.code, err.message]).toEqual([
      'bad-encoding',
      expect.stringMatching(/^line 2 is not UTF-8: save the file as "CSV UTF-8"/),
    ]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${HEADER}\n`, 'utf16le')]);
    expect((await refusal(utf16)).message).toMatch(/^the file is UTF-16, not UTF-8: .* iconv -f UTF-16 -t UTF-8$/);
    for (const noMark of [Buffer.from(`${HEADER}\n`, 'utf16le'), Buffer.from(`${HEADER}\n`, 'utf16le').swap16()])
      expect((await refusal(noMark)).message).toMatch(/^the file is UTF-16, not UTF-8/);
  });

  it('refuses a header and rows that disagree on the delimiter, and JSON lines sent as CSV, saying what to do', async () => {
    const mixed = await refusal(`${HEADER.replaceAll(';', ',')}\n552032534;Boulangerie;Élodie;Martin;P;e@x.fr\n`);
    expect([mixed.code, mixed.message]).toEqual([
      'invalid-file',
      'line 2 separates its cells with ";" but the header with ",": use one delimiter throughout',
    ]);
    const json = await refusal(`${JSON.stringify({ siren: '552032534', name: 'A' })}\n`);
    expect(json.message).toBe('line 1 is a JSON object: send JSON lines as application/jsonl, not text/csv');
    const csvAsJson = await refusal(`${HEADER}\n552032534;B;É;M;P;e@x.fr\n`, 'jsonl');
    expect(csvAsJson.message).toBe('line 1 is a CSV header: send a CSV as text/csv, not application/jsonl');
    // A one-cell row that does not hold the other delimiter is that row's business (its cells are missing).
    const { records } = await read(`${HEADER}\n552032534\n`);
    expect(records).toEqual([{ line: 2, record: expect.objectContaining({ siren: '552032534', name: '' }) }]);
  });

  it('refuses a header with unknown, missing or repeated columns, naming them and the columns there are', async () => {
    const err = await refusal('siren;nom;name;name\n552032534;x;y;z\n');
    expect(err.code).toBe('invalid-file');
    expect(err.message).toMatch(
      /^line 1, the header: unknown column nom; missing columns signer_given_name, signer_surname, signer_role, contact_email; column name given twice\. The columns are siren, name,/,
    );
  });

  it('refuses a file over its size or its row limit, and one with no row', async () => {
    const rows = Array.from({ length: 5 }, () => '552032534;N;G;S;R;e@x.fr').join('\n');
    expect((await refusal(`${HEADER}\n${rows}\n`, 'csv', { maxBytes: 1_000_000, maxRows: 4 })).message).toMatch(
      /more than 4 rows/,
    );
    expect((await refusal(`${HEADER}\n${rows}\n`, 'csv', { maxBytes: 100, maxRows: 100 })).code).toBe('too-large');
    expect((await refusal(`${HEADER}\n\n`)).code).toBe('empty');
    expect((await refusal(`${HEADER}\n${'x'.repeat(70_000)}\n`)).message).toMatch(/^line 2 is longer than 65536 bytes/);
  });

  it('reads JSON lines, each line on its own', async () => {
    const { records } = await read(
      [
        JSON.stringify({ siren: '552032534', name: 'A', sirets: ['55203253400000'] }),
        '',
        '{"siren": ',
        '[1, 2]',
        JSON.stringify({ siren: '552032534', nom: 'x' }),
      ].join('\n'),
      'jsonl',
    );
    expect(records).toEqual([
      { line: 1, record: { siren: '552032534', name: 'A', sirets: ['55203253400000'] } },
      { line: 3, faults: [{ column: 'row', message: expect.stringMatching(/^not JSON/) }] },
      { line: 4, faults: [{ column: 'row', message: 'a JSON object, one company a line' }] },
      { line: 5, faults: [{ column: 'row', message: 'unknown field nom' }] },
    ]);
  });
});

describe('checking a row', () => {
  const now = new Date('2026-12-01T10:00:00Z');
  const base = {
    siren: '552 032 534',
    name: 'Boulangerie Exemple SAS',
    signer_given_name: 'Élodie',
    signer_surname: 'Martin',
    signer_role: 'Présidente',
    contact_email: 'elodie@example.fr',
  };

  it('makes the entry the row describes: the party, its addresses and the take-over consent', () => {
    const out = checkRow(
      {
        ...base,
        city: 'Lyon',
        sirets: '55203253400000',
        routing_codes: '55203253400000/ACHATS:Service achats',
        suffixes: 'FACT',
        start_day: '2026-12-15',
        former_platform: '0042',
      },
      '0145',
      now,
    );
    expect(out).toEqual({
      row: {
        siren: '552032534',
        party: expect.objectContaining({
          name: 'Boulangerie Exemple SAS',
          tax_id: { country: 'FR', code: '27552032534' },
          addresses: [{ locality: 'Lyon', country: 'FR' }],
        }),
        invoicing: {
          entrust: 'all',
          addresses: [
            {},
            { siret: '55203253400000' },
            { siret: '55203253400000', routing_code: { id: 'ACHATS', label: 'Service achats' } },
            { suffix: 'FACT' },
          ],
          start: '2026-12-15',
        },
        formerPlatform: '0042',
        email: 'elodie@example.fr',
      },
    });
  });

  it('puts back the leading zeros a spreadsheet dropped, and takes a blank optional cell as absent', () => {
    const out = checkRow({ ...base, siren: '5520135', former_platform: '42', city: '   ', sirets: ' ' }, '0145', now);
    expect(out).toMatchObject({ row: { siren: '005520135', formerPlatform: '0042' } });
    expect('row' in out && [out.row.party.addresses, out.row.invoicing]).toEqual([undefined, undefined]);
  });

  it('names the column of every fault', () => {
    const out = checkRow(
      {
        ...base,
        name: '',
        signer_surname: 'Mar\u202Etin',
        contact_email: 'not-an-email',
        sirets: '73282932000074|55203253400000',
        routing_codes: 'ACHATS',
        start_day: '2025-01-01',
        former_platform: '0145',
      },
      '0145',
      now,
    );
    // A routing code that cannot be read hides none of the other addresses' faults.
    expect('faults' in out && out.faults.map((f) => f.column).sort()).toEqual(
      ['contact_email', 'former_platform', 'name', 'routing_codes', 'signer_surname', 'sirets', 'start_day'].sort(),
    );
    const addresses = checkRow({ ...base, sirets: '73282932000074', start_day: '2025-01-01' }, '0145', now);
    expect('faults' in addresses && addresses.faults).toEqual([
      { column: 'sirets', message: 'SIRET 73282932000074 is not an establishment of SIREN 552032534' },
      { column: 'start_day', message: 'a day from 2026-12-01 to 2027-12-02' },
    ]);
    expect(checkRow({ ...base, siren: '123456789' }, '0145', now)).toEqual({
      name: 'Boulangerie Exemple SAS',
      faults: [{ column: 'siren', message: '123456789 is not a SIREN (9 digits, Luhn)' }],
    });
  });
});
