// The SML client's PrepareToMigrate and Migrate against the SML simulator over real HTTP, the migration key rule
// (isValidMigrationKey, newMigrationKey) against the simulator's own, and the bodies the client puts on the wire
// checked by xmllint against peppol-sml-types-v1.xsd.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isValidMigrationKey, MIGRATION_KEY_SPECIALS, newMigrationKey } from '../../../domain/party/migration-key';
import { PEPPOL_SPEC_DIR } from '../../../integrations/peppol/participant-id';
import {
  createSmlClient,
  migrationRequest,
  SML_OPERATIONS,
  SmlError,
  type SmlClient,
} from '../../../integrations/peppol/sml-client';
import { NS } from '../../../integrations/peppol/soap';
import { startSmlSimulator, type SmlSimulator } from '../../../simulators/sml';

const OLD = 'OLD-SMP';
const NEW = 'NEW-SMP';
const P = 'iso6523-actorid-upis::0225:552032534';
const UNKNOWN = '0225:100000009';

const VALID = [
  '11AAbb$$',
  '11AAbb$$11AAbb$$11AAbb$$', // 24 characters
  '1Ab$1Ab$',
  'aB3_xY7-',
  'Aa1&Bb2<$!', // characters outside the classes may fill in; & and < travel escaped
  'zzZZ00()[]{}*^|+=~!@#%',
];
const INVALID: [string, string][] = [
  ['', 'empty'],
  ['1Ab$1Ab', 'too short (7)'],
  ['11AAbb$$11AAbb$$11AAbb$$1', 'too long (25)'],
  ['11aabb$$', 'no upper-case letters'],
  ['A1aabb$$', 'one upper-case letter'],
  ['11AABB$$', 'no lower-case letters'],
  ['xxAAbb$$', 'no digits'],
  ['11AAbb$x', 'one special character'],
  ['11AAbb&&', '& and < are no special characters'],
  ['1Ab$ 1Ab$', 'a blank inside'],
  [' 11AAbb$$', 'a blank around (not trimmed)'],
  ['11AAbb$$\n', 'a trailing newline'],
];

const rejection = async (p: Promise<unknown>): Promise<SmlError> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SmlError);
  return err as SmlError;
};

/** `xmllint --noout --nonet --schema spec/peppol/<xsd> -` on the document. */
function xmllint(xml: string, xsd: string): { ok: boolean; output: string } {
  const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', path.join(PEPPOL_SPEC_DIR, xsd), '-'], {
    input: xml,
    encoding: 'utf8',
  });
  if (r.error) throw r.error;
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

describe('migration keys', () => {
  it('isValidMigrationKey follows the SML rule', () => {
    for (const k of VALID) expect(isValidMigrationKey(k), k).toBe(true);
    for (const [k, why] of INVALID) expect(isValidMigrationKey(k), why).toBe(false);
    expect(isValidMigrationKey(undefined)).toBe(false);
    expect(isValidMigrationKey(12345678)).toBe(false);
  });

  it('newMigrationKey draws 16-character keys the rule takes, all different', () => {
    const keys = Array.from({ length: 1000 }, () => newMigrationKey());
    for (const k of keys) {
      expect(k).toHaveLength(16);
      expect(isValidMigrationKey(k), k).toBe(true);
      expect(k).toMatch(new RegExp(`^[A-Za-z0-9${MIGRATION_KEY_SPECIALS.replace(/[\]\\^-]/g, '\\$&')}]+$`));
    }
    expect(new Set(keys).size).toBe(keys.length);
    // Every special character turns up somewhere: the draw covers the whole set.
    const seen = new Set(keys.join(''));
    for (const c of MIGRATION_KEY_SPECIALS) expect(seen.has(c), c).toBe(true);
  });

  it('newMigrationKey takes a length from 8 to 24', () => {
    expect(newMigrationKey(8)).toHaveLength(8);
    expect(newMigrationKey(24)).toHaveLength(24);
    for (let i = 0; i < 200; i++) expect(isValidMigrationKey(newMigrationKey(8))).toBe(true);
    expect(() => newMigrationKey(7)).toThrow(RangeError);
    expect(() => newMigrationKey(25)).toThrow(RangeError);
    expect(() => newMigrationKey(12.5)).toThrow(RangeError);
  });
});

describe('SML client ↔ simulator: migration', () => {
  let sim: SmlSimulator;
  let oldSmp: SmlClient;
  let newSmp: SmlClient;

  beforeAll(async () => {
    sim = await startSmlSimulator({ host: '127.0.0.1', port: 0, pageSize: 2 });
    oldSmp = createSmlClient({ url: sim.url, smpId: OLD });
    newSmp = createSmlClient({ url: sim.url, smpId: NEW });
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(async () => {
    sim.setFaults(undefined);
    if (sim.ownerOf(P))
      sim.seedParticipant(OLD, P); // held by OLD, nothing prepared
    else await oldSmp.create(P);
  });

  it('moves our participant to another SMP: ours until Migrate, then listed by the new SMP only', async () => {
    expect(await oldSmp.list()).toEqual([P]);
    expect(await newSmp.list()).toEqual([]);
    const key = newMigrationKey();

    await oldSmp.prepareToMigrate(P, key);
    expect(sim.ownerOf(P)).toBe(OLD);
    expect(await oldSmp.list()).toEqual([P]);
    expect(await newSmp.list()).toEqual([]);

    await newSmp.migrate('0225:552032534', key); // a bare ICD:code, as the client takes it
    expect(sim.ownerOf(P)).toBe(NEW);
    expect(await oldSmp.list()).toEqual([]);
    expect(await newSmp.list()).toEqual([P]);
    // The new SMP holds it for good: it may delete it, the former one may not.
    expect((await rejection(oldSmp.delete(P))).kind).toBe('NotFoundFault');
  });

  it('answers each refusal with its WSDL fault, final (not retryable)', async () => {
    const key = newMigrationKey();
    const cases: [string, () => Promise<void>, string, RegExp][] = [
      ['prepare, unknown participant', () => oldSmp.prepareToMigrate(UNKNOWN, key), 'NotFoundFault', /doesn't exist/],
      ['prepare, not the owner', () => newSmp.prepareToMigrate(P, key), 'UnauthorizedFault', /not the owner/],
      ['prepare, bad key', () => oldSmp.prepareToMigrate(P, 'short'), 'BadRequestFault', /migration key/],
      ['migrate, bad key', () => newSmp.migrate(P, '11AAbb$$11AAbb$$11AAbb$$1'), 'BadRequestFault', /25 characters/],
      ['migrate, unknown participant', () => newSmp.migrate(UNKNOWN, key), 'NotFoundFault', /doesn't exist/],
      ['migrate, nothing prepared', () => newSmp.migrate(P, key), 'NotFoundFault', /No migration is prepared/],
      ['migrate, already ours', () => oldSmp.migrate(P, key), 'BadRequestFault', /already belongs/],
    ];
    for (const [what, call, kind, message] of cases) {
      const err = await rejection(call());
      expect(err, what).toMatchObject({ kind, retryable: false, status: 500, alreadyExists: false });
      expect(err.message, what).toMatch(message);
      expect(err.message, what).not.toContain(key);
    }
    await oldSmp.prepareToMigrate(P, key);
    const wrong = await rejection(newSmp.migrate(P, newMigrationKey()));
    expect(wrong).toMatchObject({ kind: 'UnauthorizedFault', retryable: false });
    expect(wrong.message).toMatch(/migration key doesn't match/);
    expect(sim.ownerOf(P)).toBe(OLD);
  });

  it('serves a key once', async () => {
    const key = newMigrationKey();
    await oldSmp.prepareToMigrate(P, key);
    await newSmp.migrate(P, key);
    const third = createSmlClient({ url: sim.url, smpId: 'THIRD-SMP' });
    expect((await rejection(third.migrate(P, key))).kind).toBe('NotFoundFault');
    expect((await rejection(oldSmp.migrate(P, key))).kind).toBe('NotFoundFault'); // back with the spent key
    expect((await rejection(newSmp.migrate(P, key))).kind).toBe('BadRequestFault');
    expect(sim.ownerOf(P)).toBe(NEW);
  });

  it('a second PrepareToMigrate replaces the key', async () => {
    const first = newMigrationKey();
    const second = newMigrationKey();
    await oldSmp.prepareToMigrate(P, first);
    await oldSmp.prepareToMigrate(P, second);
    expect(sim.pendingMigration(P)).toEqual({ smpId: OLD, key: second });
    expect((await rejection(newSmp.migrate(P, first))).kind).toBe('UnauthorizedFault');
    await newSmp.migrate(P, second);
    expect(sim.ownerOf(P)).toBe(NEW);
  });

  it('the simulator takes exactly the keys isValidMigrationKey takes', async () => {
    for (const k of [...VALID, ...Array.from({ length: 20 }, () => newMigrationKey())]) {
      await oldSmp.prepareToMigrate(P, k);
      expect(sim.pendingMigration(P)?.key, k).toBe(k); // sent verbatim, escaped on the wire
    }
    for (const [k, why] of INVALID) {
      const err = await rejection(oldSmp.prepareToMigrate(P, k));
      expect(err.kind, why).toBe('BadRequestFault');
    }
  });

  it('makes injected transport failures on the new operations retryable', async () => {
    sim.setFaults({ status: 503, retryAfterSeconds: 3, bodyIncludes: 'CompleteMigrationRecord' });
    const key = newMigrationKey();
    await oldSmp.prepareToMigrate(P, key); // not targeted
    expect(await rejection(newSmp.migrate(P, key))).toMatchObject({
      kind: 'http',
      status: 503,
      retryable: true,
      retryAfterMs: 3000,
    });
    sim.setFaults(undefined);
    await newSmp.migrate(P, key);
    expect(sim.ownerOf(P)).toBe(NEW);
  });
});

describe('what the client puts on the wire', () => {
  /** A stand-in SML that records each request and answers an empty SOAP Body. */
  let server: http.Server;
  let url: string;
  const seen: { soapAction?: string; contentType?: string; body: string }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          soapAction: req.headers.soapaction as string | undefined,
          contentType: req.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
        res.end(`<S:Envelope xmlns:S="${NS.soap}"><S:Body/></S:Envelope>`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** The SOAP Body's one element, serialised on its own (it declares the namespaces it uses). */
  const bodyElement = (envelope: string): string => {
    const doc = new DOMParser().parseFromString(envelope, 'text/xml');
    const body = doc.getElementsByTagNameNS(NS.soap, 'Body')[0]!;
    const el = Array.from(body.childNodes).find((n) => n.nodeType === 1)!;
    return new XMLSerializer().serializeToString(el);
  };

  it('PrepareMigrationRecord and CompleteMigrationRecord bodies validate against peppol-sml-types-v1.xsd', async () => {
    const sml = createSmlClient({ url, smpId: 'OUR-SMP' });
    const key = 'Aa1&Bb2<$!"\'>'; // valid, and every character XML escapes
    await sml.prepareToMigrate('0225:552032534', key);
    await sml.migrate('iso6523-actorid-upis::0225:552032534', newMigrationKey());
    expect(seen).toHaveLength(2);
    const [prepare, migrate] = seen as [(typeof seen)[0], (typeof seen)[0]];
    expect(prepare.soapAction).toBe(`"${SML_OPERATIONS.PrepareToMigrate.soapAction}"`);
    expect(migrate.soapAction).toBe(`"${SML_OPERATIONS.Migrate.soapAction}"`);
    expect(SML_OPERATIONS.PrepareToMigrate.soapAction).toBe(
      'http://busdox.org/serviceMetadata/ManageBusinessIdentifierService/1.0/         :prepareMigrateIn',
    );
    expect(SML_OPERATIONS.Migrate.soapAction).toBe(
      'http://busdox.org/serviceMetadata/ManageBusinessIdentifierService/1.0/         :migrateIn',
    );
    expect(prepare.contentType).toMatch(/^text\/xml/);

    for (const [sent, element] of [
      [prepare, 'PrepareMigrationRecord'],
      [migrate, 'CompleteMigrationRecord'],
    ] as const) {
      const el = bodyElement(sent.body);
      expect(el).toContain(`<lrs:${element} `);
      const lint = xmllint(el, 'peppol-sml-types-v1.xsd');
      expect(lint, lint.output).toMatchObject({ ok: true });
    }
    // The key arrives as sent.
    const doc = new DOMParser().parseFromString(prepare.body, 'text/xml');
    expect(doc.getElementsByTagNameNS(NS.lrs, 'MigrationKey')[0]?.textContent).toBe(key);
    expect(doc.getElementsByTagNameNS(NS.ids, 'ParticipantIdentifier')[0]?.getAttribute('scheme')).toBe(
      'iso6523-actorid-upis',
    );
  });

  it('xmllint refuses a body out of the schema’s order (the check has teeth)', () => {
    const good = bodyElement(migrationRequest('Migrate', 'OUR-SMP', '0225:552032534', newMigrationKey()));
    expect(xmllint(good, 'peppol-sml-types-v1.xsd').ok).toBe(true);
    const noKey = good.replace(/<lrs:MigrationKey>.*<\/lrs:MigrationKey>/, '');
    expect(xmllint(noKey, 'peppol-sml-types-v1.xsd')).toMatchObject({ ok: false });
    const reordered = good.replace(
      /(<lrs:ServiceMetadataPublisherID>.*<\/lrs:ServiceMetadataPublisherID>)(<ids:ParticipantIdentifier.*<\/ids:ParticipantIdentifier>)/,
      '$2$1',
    );
    expect(reordered).not.toBe(good);
    expect(xmllint(reordered, 'peppol-sml-types-v1.xsd')).toMatchObject({ ok: false });
  });
});
