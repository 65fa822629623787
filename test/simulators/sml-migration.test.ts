// The SML simulator's PrepareToMigrate and Migrate, spoken as raw SOAP 1.1 (no client of ours): a participant moves
// from one SMP to another with a migration key, BDMSL's faults, its key rule, the key served once, re-preparing,
// the state file, and fault injection on the new operations.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSmlSimulator, type SmlSimulator } from '../../simulators/sml';
import { migrationKeyProblem } from '../../simulators/sml/soap-handler';

const LRS = 'http://busdox.org/serviceMetadata/locator/1.0/';
const IDS = 'http://busdox.org/transport/identifiers/1.0/';
const SOAP = 'http://schemas.xmlsoap.org/soap/envelope/';
// Verbatim from the WSDL, its nine blanks included.
const ACTION = 'http://busdox.org/serviceMetadata/ManageBusinessIdentifierService/1.0/         :';
const OPS = {
  Create: { element: 'CreateParticipantIdentifier', action: `${ACTION}createIn` },
  Delete: { element: 'DeleteParticipantIdentifier', action: `${ACTION}deleteIn` },
  List: { element: 'PageRequest', action: `${ACTION}listIn` },
  PrepareToMigrate: { element: 'PrepareMigrationRecord', action: `${ACTION}prepareMigrateIn` },
  Migrate: { element: 'CompleteMigrationRecord', action: `${ACTION}migrateIn` },
} as const;
type Op = keyof typeof OPS;

const OLD = 'OLD-SMP';
const NEW = 'NEW-SMP';
const THIRD = 'THIRD-SMP';
const KEY = 'Ab12$%cdEF(gh)34';
const P = '0225:552032534';
const FULL = `iso6523-actorid-upis::${P}`;

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One body element of `op`: the SMP id, the participant, then the key (migrations) when given. */
function bodyOf(op: Op, smpId: string, participant?: string, key?: string): string {
  const pid = participant
    ? `<ParticipantIdentifier xmlns="${IDS}" scheme="iso6523-actorid-upis">${participant}</ParticipantIdentifier>`
    : '';
  const mk = key === undefined ? '' : `<MigrationKey>${xmlEscape(key)}</MigrationKey>`;
  return `<${OPS[op].element} xmlns="${LRS}"><ServiceMetadataPublisherID>${smpId}</ServiceMetadataPublisherID>${pid}${mk}</${OPS[op].element}>`;
}

interface Answer {
  status: number;
  text: string;
  /** The typed fault's element name (BadRequestFault, …), if any. */
  fault?: string;
  faultMessage?: string;
  faultcode?: string;
}

function read(status: number, text: string): Answer {
  const doc = new DOMParser().parseFromString(text, 'text/xml');
  const faultEl = doc.getElementsByTagNameNS(SOAP, 'Fault')[0];
  if (!faultEl) return { status, text };
  const typed = doc.getElementsByTagNameNS(LRS, '*')[0];
  return {
    status,
    text,
    faultcode: faultEl.getElementsByTagName('faultcode')[0]?.textContent ?? undefined,
    ...(typed && {
      fault: typed.localName!,
      faultMessage: typed.getElementsByTagNameNS(LRS, 'FaultMessage')[0]?.textContent ?? undefined,
    }),
  };
}

describe('SML simulator: PrepareToMigrate and Migrate', () => {
  let dir: string;
  let sim: SmlSimulator;

  const post = async (op: Op, body: string, action: string = OPS[op].action): Promise<Answer> => {
    const res = await fetch(sim.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${action}"` },
      body: `<?xml version="1.0"?><s:Envelope xmlns:s="${SOAP}"><s:Body>${body}</s:Body></s:Envelope>`,
    });
    return read(res.status, await res.text());
  };
  const prepare = (smpId: string, key: string, participant = P) =>
    post('PrepareToMigrate', bodyOf('PrepareToMigrate', smpId, participant, key));
  const migrate = (smpId: string, key: string, participant = P) =>
    post('Migrate', bodyOf('Migrate', smpId, participant, key));
  /** Every participant List answers for an SMP (the simulator's page is large enough here). */
  const list = async (smpId: string): Promise<string[]> => {
    const r = await post('List', bodyOf('List', smpId));
    expect(r.status).toBe(200);
    const doc = new DOMParser().parseFromString(r.text, 'text/xml');
    return Array.from(doc.getElementsByTagNameNS(IDS, 'ParticipantIdentifier')).map(
      (e) => `${e.getAttribute('scheme')}::${e.textContent}`,
    );
  };
  const expectFault = (r: Answer, fault: string, message: RegExp) => {
    expect(r.status, r.text).toBe(500);
    expect(r.faultcode).toBe('S:Client');
    expect(r.fault, r.text).toBe(fault);
    expect(r.faultMessage).toMatch(message);
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sml-migration-sim-'));
    sim = await startSmlSimulator({ port: 0, stateFile: path.join(dir, 'sml.json') });
  });
  afterAll(async () => {
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    sim.setFaults(undefined);
    sim.seedParticipant(OLD, P); // every test starts from the participant held by OLD, no migration prepared
  });

  it('moves a participant: the owner keeps it until Migrate, then it is the new SMP’s', async () => {
    expect(sim.ownerOf(P)).toBe(OLD);
    expect(await list(OLD)).toEqual([FULL]);

    const prepared = await prepare(OLD, KEY);
    expect(prepared.status).toBe(200);
    expect(prepared.fault).toBeUndefined();
    expect(prepared.text).toMatch(/<S:Body\/>|<S:Body><\/S:Body>/); // prepareMigrateOut has no part
    expect(sim.pendingMigration(P)).toEqual({ smpId: OLD, key: KEY });
    expect(sim.ownerOf(FULL)).toBe(OLD); // prepared, not moved
    expect(await list(OLD)).toEqual([FULL]);
    expect(await list(NEW)).toEqual([]);

    const moved = await migrate(NEW, KEY);
    expect(moved.status).toBe(200);
    expect(moved.text).toMatch(/<S:Body\/>|<S:Body><\/S:Body>/);
    expect(sim.ownerOf(P)).toBe(NEW);
    expect(sim.pendingMigration(P)).toBeUndefined();
    expect(await list(OLD)).toEqual([]);
    expect(await list(NEW)).toEqual([FULL]);
    expect(sim.participants(NEW)).toEqual([FULL]);
  });

  it('PrepareToMigrate: NotFoundFault for an unknown participant, UnauthorizedFault for another SMP’s', async () => {
    expectFault(
      await prepare(OLD, KEY, '0225:100000009'),
      'NotFoundFault',
      /\[ERR-100\].*0225:100000009.*doesn't exist/,
    );
    expectFault(
      await prepare(NEW, KEY),
      'UnauthorizedFault',
      /\[ERR-105\].*'NEW-SMP' is not the owner.*0225:552032534/,
    );
    expect(sim.pendingMigration(P)).toBeUndefined();
    expect(sim.ownerOf(P)).toBe(OLD);
  });

  it('Migrate: unknown participant, nothing prepared, wrong key, by its own SMP', async () => {
    expectFault(await migrate(NEW, KEY, '0225:100000009'), 'NotFoundFault', /\[ERR-100\].*doesn't exist/);
    expectFault(await migrate(NEW, KEY), 'NotFoundFault', /\[ERR-100\] No migration is prepared.*PrepareToMigrate/);
    expect((await prepare(OLD, KEY)).status).toBe(200);
    // BDMSL: a prepared migration and another key is its UnauthorizedException.
    expectFault(
      await migrate(NEW, 'Zz98#&yxWV!ut*76'),
      'UnauthorizedFault',
      /\[ERR-105\].*migration key doesn't match/,
    );
    expectFault(await migrate(OLD, KEY), 'BadRequestFault', /\[ERR-106\].*already belongs to the SMP 'OLD-SMP'/);
    // None of these moved it, nor spent the key.
    expect(sim.ownerOf(P)).toBe(OLD);
    expect(sim.pendingMigration(P)).toEqual({ smpId: OLD, key: KEY });
    expect((await migrate(NEW, KEY)).status).toBe(200);
  });

  it('serves a key once: after Migrate it is gone, for anyone', async () => {
    await prepare(OLD, KEY);
    expect((await migrate(NEW, KEY)).status).toBe(200);
    expectFault(await migrate(THIRD, KEY), 'NotFoundFault', /No migration is prepared/);
    expectFault(await migrate(NEW, KEY), 'BadRequestFault', /already belongs to the SMP 'NEW-SMP'/);
    expect(sim.ownerOf(P)).toBe(NEW);
    // The new owner may hand it on in turn, the former owner may not.
    expectFault(await prepare(OLD, KEY), 'UnauthorizedFault', /not the owner/);
    expect((await prepare(NEW, 'Qw12[]erTY34')).status).toBe(200);
    expect((await migrate(THIRD, 'Qw12[]erTY34')).status).toBe(200);
    expect(sim.ownerOf(P)).toBe(THIRD);
  });

  it('a second PrepareToMigrate replaces the key', async () => {
    await prepare(OLD, KEY);
    const second = 'Mn56{}opQR78';
    expect((await prepare(OLD, second)).status).toBe(200);
    expect(sim.pendingMigration(P)).toEqual({ smpId: OLD, key: second });
    expectFault(await migrate(NEW, KEY), 'UnauthorizedFault', /doesn't match/);
    expect((await migrate(NEW, second)).status).toBe(200);
    expect(sim.ownerOf(P)).toBe(NEW);
  });

  describe('the key rule (BDMSL: 8–24 characters, no blank, two upper, two lower, two digits, two specials)', () => {
    const valid = [
      '11AAbb$$',
      '11AAbb$$11AAbb$$11AAbb$$', // 24
      '1Ab$1Ab$',
      'aB3_xY7-',
      'Aa1&Bb2<$!', // other characters fill in (and travel escaped)
      'zzZZ00()[]{}*^|+=~!@#%',
    ];
    const invalid: [string, RegExp][] = [
      ['', /0 characters/],
      ['1Ab$1Ab', /7 characters/],
      ['11AAbb$$11AAbb$$11AAbb$$1', /25 characters/],
      ['11aabb$$', /two upper-case/],
      ['11AABB$$', /two lower-case/],
      ['xxAAbb$$', /two digits/],
      ['11AAbb$x', /two special/],
      ['11AAbb&&', /two special/], // & is no special character for the SML
      ['1Ab$ 1Ab$', /blanks/],
      [' 11AAbb$$', /blanks/], // taken verbatim, not trimmed
      ['1Abc$def', /two upper-case.*two digits.*two special/],
    ];

    it('agrees with the examples', () => {
      for (const k of valid) expect(migrationKeyProblem(k), k).toBeUndefined();
      for (const [k, why] of invalid) expect(migrationKeyProblem(k), k).toMatch(why);
    });

    it('takes the valid keys in both operations', async () => {
      for (const k of valid) {
        sim.seedParticipant(OLD, P);
        expect((await prepare(OLD, k)).status, k).toBe(200);
        expect(sim.pendingMigration(P)?.key).toBe(k);
        expect((await migrate(NEW, k)).status, k).toBe(200);
        expect(sim.ownerOf(P)).toBe(NEW);
      }
    });

    it('refuses the others with a BadRequestFault, in both operations, without echoing the key', async () => {
      await prepare(OLD, KEY);
      for (const [k, why] of invalid) {
        const p = await prepare(OLD, k);
        expectFault(p, 'BadRequestFault', /\[ERR-106\] The migration key does not follow the SML rules/);
        expect(p.faultMessage).toMatch(why);
        const m = await migrate(NEW, k);
        expectFault(m, 'BadRequestFault', /\[ERR-106\] The migration key does not follow the SML rules/);
        if (k.trim().length > 3) {
          expect(p.text).not.toContain(xmlEscape(k));
          expect(m.text).not.toContain(xmlEscape(k));
        }
      }
      expect(sim.pendingMigration(P)).toEqual({ smpId: OLD, key: KEY }); // the refused keys replaced nothing
      expect(sim.ownerOf(P)).toBe(OLD);
    });

    it('checks the key before the participant (BDMSL validates the record first)', async () => {
      expectFault(await prepare(NEW, 'short', '0225:100000009'), 'BadRequestFault', /migration key/);
      expectFault(await migrate(OLD, 'short'), 'BadRequestFault', /migration key/);
    });
  });

  it('needs the WSDL’s SOAPActions verbatim and bodies that match peppol-sml-types-v1.xsd', async () => {
    const tidy = await post(
      'PrepareToMigrate',
      bodyOf('PrepareToMigrate', OLD, P, KEY),
      'http://busdox.org/serviceMetadata/ManageBusinessIdentifierService/1.0/:prepareMigrateIn',
    );
    expect(tidy.status).toBe(500);
    expect(tidy.faultcode).toBe('S:Client');
    expect(tidy.text).toMatch(/SOAPAction.*PrepareToMigrate/);
    // Migrate's body under PrepareToMigrate's action.
    expect((await post('Migrate', bodyOf('Migrate', NEW, P, KEY), OPS.PrepareToMigrate.action)).faultcode).toBe(
      'S:Client',
    );
    // No MigrationKey; the key before the participant; an unknown element.
    const noKey = await post('PrepareToMigrate', bodyOf('PrepareToMigrate', OLD, P));
    expect(noKey.text).toMatch(/the PrepareMigrationRecord does not match peppol-sml-types-v1.xsd/);
    expect(noKey.fault).toBeUndefined(); // a plain soap:Client fault, as BDMSL's JAX-WS answers
    const swapped = await post(
      'Migrate',
      `<CompleteMigrationRecord xmlns="${LRS}"><ServiceMetadataPublisherID>${NEW}</ServiceMetadataPublisherID><MigrationKey>${KEY}</MigrationKey><ParticipantIdentifier xmlns="${IDS}" scheme="iso6523-actorid-upis">${P}</ParticipantIdentifier></CompleteMigrationRecord>`,
    );
    expect(swapped.text).toMatch(/the CompleteMigrationRecord does not match peppol-sml-types-v1.xsd/);
    const unqualified = await post(
      'Migrate',
      bodyOf('Migrate', NEW, P, KEY).replace(
        /<MigrationKey>(.*)<\/MigrationKey>/,
        '<MigrationKey xmlns="">$1</MigrationKey>',
      ),
    );
    expect(unqualified.text).toMatch(/does not match peppol-sml-types-v1.xsd/);
    expect(sim.pendingMigration(P)).toBeUndefined();
    expect(sim.ownerOf(P)).toBe(OLD);
  });

  it('refuses a bad participant identifier with a BadRequestFault', async () => {
    const r = await post(
      'PrepareToMigrate',
      bodyOf('PrepareToMigrate', OLD, P, KEY).replace('iso6523-actorid-upis', 'other-scheme'),
    );
    expectFault(r, 'BadRequestFault', /\[ERR-106\] unsupported participant identifier scheme/);
  });

  it('Delete drops a prepared migration with the participant', async () => {
    await prepare(OLD, KEY);
    expect((await post('Delete', bodyOf('Delete', OLD, P))).status).toBe(200);
    expect(sim.pendingMigration(P)).toBeUndefined();
    expectFault(await migrate(NEW, KEY), 'NotFoundFault', /doesn't exist/);
    expect((await post('Create', bodyOf('Create', THIRD, P))).status).toBe(200);
    expectFault(await migrate(NEW, KEY), 'NotFoundFault', /No migration is prepared/); // the old key is not revived
  });

  it('keeps prepared migrations in the state file across restarts', async () => {
    await prepare(OLD, KEY);
    await sim.close();
    sim = await startSmlSimulator({ port: 0, stateFile: path.join(dir, 'sml.json') });
    expect(sim.ownerOf(P)).toBe(OLD);
    expect(sim.pendingMigration(P)).toEqual({ smpId: OLD, key: KEY });
    expect((await migrate(NEW, KEY)).status).toBe(200);
    await sim.close();
    sim = await startSmlSimulator({ port: 0, stateFile: path.join(dir, 'sml.json') });
    expect(sim.ownerOf(P)).toBe(NEW);
    expect(sim.pendingMigration(P)).toBeUndefined();
  });

  it('answers UnauthorizedFault to an SMP id outside the allow-list, when one is set', async () => {
    const strict = await startSmlSimulator({ port: 0, allowedSmpIds: [OLD] });
    try {
      strict.seedParticipant(OLD, P);
      const send = (op: Op, body: string) =>
        fetch(strict.endpoint, {
          method: 'POST',
          headers: { 'content-type': 'text/xml', soapaction: `"${OPS[op].action}"` },
          body: `<s:Envelope xmlns:s="${SOAP}"><s:Body>${body}</s:Body></s:Envelope>`,
        }).then(async (r) => read(r.status, await r.text()));
      expect((await send('PrepareToMigrate', bodyOf('PrepareToMigrate', OLD, P, KEY))).status).toBe(200);
      const r = await send('Migrate', bodyOf('Migrate', NEW, P, KEY));
      expect(r.fault).toBe('UnauthorizedFault');
      expect(r.faultMessage).toMatch(/not authorized to act for the SMP 'NEW-SMP'/);
      expect(strict.ownerOf(P)).toBe(OLD);
    } finally {
      await strict.close();
    }
  });

  describe('fault injection applies to the new operations', () => {
    it('an injected 503 on PrepareToMigrate only (chosen by body): nothing is recorded', async () => {
      sim.setFaults({ status: 503, retryAfterSeconds: 2, bodyIncludes: 'PrepareMigrationRecord' });
      const res = await fetch(sim.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'text/xml', soapaction: `"${OPS.PrepareToMigrate.action}"` },
        body: `<s:Envelope xmlns:s="${SOAP}"><s:Body>${bodyOf('PrepareToMigrate', OLD, P, KEY)}</s:Body></s:Envelope>`,
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(sim.pendingMigration(P)).toBeUndefined();
      expect(await list(OLD)).toEqual([FULL]); // other operations pass
      expect(sim.faultsSeen()[503]).toBeGreaterThanOrEqual(1);
    });

    it('a Migrate whose answer is lost was carried out all the same', async () => {
      await prepare(OLD, KEY);
      sim.setFaults({ loseResponses: true, bodyIncludes: 'CompleteMigrationRecord' });
      await expect(migrate(NEW, KEY)).rejects.toThrow();
      expect(sim.ownerOf(P)).toBe(NEW);
      sim.setFaults(undefined);
      // The retry finds its own result: the participant is already the caller's.
      expectFault(await migrate(NEW, KEY), 'BadRequestFault', /already belongs to the SMP 'NEW-SMP'/);
    });
  });
});
