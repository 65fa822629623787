// Bad input, generated (fast-check): wrong types, missing fields, huge strings, invalid SIRENs, broken base64,
// truncated PDFs and images, wrong content types, path traversal in ids, unicode oddities — sent to every route.
// The service must answer each with a 4xx and a reason (never a 5xx), keep answering, and leave the store exactly
// as it was whenever it refuses a request.
import crypto from 'node:crypto';
import fc from 'fast-check';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../api/operations';
import { startHarness, type Harness } from '../support/harness';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { jpeg, png } from '../../bin/stack/sample-images';
import { jobWhen } from '../support/jobs';
import { startRegistration } from '../support/registration';

const RUNS = Number(process.env.BAD_INPUT_RUNS ?? 600);

let h: Harness;
let entryId: string;
let ref: string;
let pdf: Buffer;
beforeAll(async () => {
  h = await startHarness();
  entryId = crypto.randomUUID();
  await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(makeSiren()) });
  await jobWhen(h, await startRegistration(h, entryId), ['WAIT']);
  ref = (await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-link`)).body.ref;
  const doc = await PDFDocument.create();
  doc.addPage().drawText('Mandat');
  pdf = Buffer.from(await doc.save());
});
afterAll(() => h?.close());

/** One digest of everything a request could change. */
async function storeDigest(): Promise<string> {
  const tables = [
    'entries',
    'entry_meta',
    'entry_states',
    'mandates',
    'identity_documents',
    'jobs',
    'workflows',
    'api_keys',
    'webhook_subscriptions',
    'credentials',
    'audit_events',
  ];
  const parts: string[] = [];
  for (const t of tables) {
    const { rows } = await h.db.query<{ d: string | null }>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS d FROM ${t} t`,
    );
    parts.push(`${t}:${rows[0]?.d}`);
  }
  return parts.join(',');
}

const oddStrings = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\u202e\u0645evil',
    'e\u0301',
    '\u200b',
    '😀'.repeat(50),
    'ＡＢＣ',
    '../../etc/passwd',
    '..%2f..%2f',
    '%00',
    'null',
    '-1',
    '1e309',
  ),
  fc.constant('x'.repeat(300_000)),
);
const segment = fc.oneof(
  fc.constant('__ENTRY__'),
  fc.uuid().map(String),
  oddStrings.map((s) => encodeURIComponent((s.slice(0, 300) as string & { toWellFormed(): string }).toWellFormed())),
  fc.constantFrom('..', '%2e%2e', '..%2F..%2Fetc', '%E0%A4%A', 'key', 'front', 'page'),
);
/** The generators; built once the fixtures (a real PDF to truncate) exist. */
function requests() {
  const b64 = (b: Buffer) => b.toString('base64');
  const truncated = (b: Buffer) => fc.integer({ min: 0, max: b.length - 1 }).map((n) => b64(b.subarray(0, n)));
  const fileData = fc.oneof(
    truncated(png()),
    truncated(jpeg()),
    fc.constant(pdf).chain((p) => truncated(p)),
    fc.constantFrom('not base64!', '====', 'A', '%%%%'),
    oddStrings,
  );
  const value = fc.oneof(
    fc.anything({ maxDepth: 2 }),
    oddStrings,
    fileData,
    fc.constantFrom(null, true, 0, -1, 1e308, [], {}),
  );
  const badParty = fc.record(
    {
      name: value,
      tax_id: fc.oneof(
        value,
        fc.record({ country: fc.constantFrom('FR', 'fr', 'XX', ''), code: fc.string({ maxLength: 15 }) }),
      ),
      identities: fc.oneof(
        value,
        fc.array(
          fc.record({
            type: fc.constantFrom('SIREN', 'SIRET', 'x'),
            code: fc.oneof(fc.string({ maxLength: 14 }), fc.constant('123456789')),
          }),
          { maxLength: 3 },
        ),
      ),
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    value,
    fc.dictionary(
      fc.constantFrom(
        'data',
        'view',
        'signature',
        'key',
        'url',
        'kinds',
        'name',
        'scopes',
        'approved',
        'reason',
        'workflow_id',
        'silo_entry_id',
        'steps',
        'kind',
        'access_token',
        'given',
      ),
      value,
      { maxKeys: 4 },
    ),
    fc.record({ view: fc.constantFrom('front', 'back', 'page', 'side'), data: fileData }),
    fc.record({ data: fc.oneof(fileData, badParty) }),
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=latin1',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    undefined,
  );
  const request = fc.record({
    op: fc.constantFrom(...OPERATIONS.filter((o) => o.path !== '/metrics').map((o) => `${o.method} ${o.path}`)),
    segments: fc.array(segment, { minLength: 3, maxLength: 3 }),
    body: fc.option(body, { nil: undefined }),
    raw: fc.option(fc.oneof(oddStrings, fc.constantFrom('{', '{"a":', '[]', 'null', '{"__proto__":{"x":1}}')), {
      nil: undefined,
    }),
    contentType,
    query: fc.option(
      fc.dictionary(
        fc.constantFrom('lang', 'limit', 'cursor', 'v', 'x'),
        oddStrings.map((s) => s.slice(0, 200)),
        { maxKeys: 2 },
      ),
      { nil: undefined },
    ),
  });
  return request;
}

describe('bad input', () => {
  it('refuses NUL characters in path and query values (they once reached SQL: a 500)', async () => {
    for (const path of ['/silo/v1/entries/key/%00', '/transform/v1/jobs/key/a%00b', '/silo/v1/entries?folder=%00']) {
      const r = await h.api('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.body.detail).toMatch(/NUL/);
    }
  });

  it(
    `${RUNS} generated malformed requests: no 5xx, a reason for every refusal, the store untouched by them`,
    { timeout: 600_000 },
    async () => {
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(requests(), async (r) => {
          let i = 0;
          const [opMethod, opPath] = r.op.split(' ') as [string, string];
          const path = opPath.replace(/:(\w+)/g, (_, name: string) => {
            const s = r.segments[i++ % 3]!;
            if (s === '__ENTRY__') return name === 'ref' ? ref : entryId;
            return name === 'ref' && s.length === 0 ? ref : s;
          });
          const qs = r.query ? `?${new URLSearchParams(r.query as Record<string, string>)}` : '';
          const payload = r.raw ?? (r.body === undefined ? undefined : JSON.stringify(r.body));
          const headers: Record<string, string> = { authorization: `Bearer ${h.apiKey}` };
          if (r.contentType && payload !== undefined) headers['content-type'] = r.contentType;
          const method = opMethod.toUpperCase();
          const before = method === 'GET' ? '' : await storeDigest();
          const res = await fetch(`${h.baseUrl}${path}${qs}`, {
            method,
            headers,
            body: method === 'GET' ? undefined : payload,
          });
          const text = await res.text();
          expect(res.status, `${method} ${path.slice(0, 200)} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
          if (res.status >= 400) {
            refused++;
            if (/json/.test(res.headers.get('content-type') ?? ''))
              expect(
                (JSON.parse(text) as { detail?: string }).detail ?? (JSON.parse(text) as { code?: string }).code,
              ).toBeTruthy();
            if (method !== 'GET')
              expect(await storeDigest(), `${method} ${path.slice(0, 200)} was refused but changed the store`).toBe(
                before,
              );
          }
        }),
        { numRuns: RUNS, seed: Number(process.env.BAD_INPUT_SEED ?? Date.now() % 2 ** 31) },
      );
      expect(refused).toBeGreaterThan(RUNS / 2); // the generators do produce bad requests (some GETs are fine as they are)
      // Still answering, still healthy.
      expect((await h.api('GET', '/utils/v1/ping', undefined, null)).body).toEqual({ ping: 'pong' });
      expect((await h.api('GET', '/utils/v1/health/ready', undefined, null)).status).toBe(200);
    },
  );
});
