// Our SMP over HTTP: every answer validated by xmllint against the official XSDs and every signature verified by
// xmlsec1, on real responses of the router.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { certificateBase64, generateSelfSigned } from '../../../platform/crypto/dev-certificates';
import { resolveSmpOptions, smpOptionsFromFiles } from '../../../integrations/peppol/smp-documents';
import { disableParticipant, publishParticipant, type Visibility } from '../../../platform/store/peppol-participants';
import type { Db } from '../../../platform/store/db';
import { insertEntry } from '../../../platform/store/entries';
import { createWorkspace } from '../../../platform/store/workspaces';
import { makeSiren, party, siretOf } from '../../../bin/stack/sample-parties';
import { freshDb } from '../../support/harness';
import { get, startSmpServer, xmllint, xmlsecVerify, type SmpServer } from '../../support/smp';
import { contractViolation } from '../../support/contract';

const SMP_XSD = 'peppol-smp-types-v1-ext.xsd';
const CARD_XSD = 'peppol-directory-business-card-20180621.xsd';
const enc = encodeURIComponent;

describe('our SMP (GET ServiceGroup, SignedServiceMetadata, business card)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let smp: SmpServer;
  let ws: string;

  beforeAll(async () => {
    ({ db, drop } = await freshDb());
    smp = await startSmpServer(db);
    ws = (await createWorkspace(db, 'smp')).id;
  });
  afterAll(async () => {
    await smp.close();
    await drop();
  });

  const publish = async (
    o: {
      docGroups?: string[];
      visibility?: Visibility;
      directory?: boolean;
      siren?: string;
      /** The address's directory identifier (SIREN_SIRET, SIREN_SIRET_ROUTAGE, SIREN_SUFFIXE); the SIREN's by default. */
      address?: (siren: string) => string;
      entryId?: string;
    } = {},
  ) => {
    const siren = o.siren ?? makeSiren();
    const entry = o.entryId
      ? { id: o.entryId }
      : await insertEntry(db, {
          id: crypto.randomUUID(),
          workspaceId: ws,
          docSchema: 'org/party',
          data: party(siren),
          siren,
        });
    // As the Peppol step records it: 0225:<address>, lowercased (Peppol identifiers ignore case).
    const participantId = `iso6523-actorid-upis::0225:${(o.address?.(siren) ?? siren).toLowerCase()}`;
    await publishParticipant(db, {
      participantId,
      workspaceId: ws,
      entryId: entry.id,
      docGroups: o.docGroups ?? ['france'],
      visibility: o.visibility ?? 'smp+sml+peppol',
      directory: o.directory ?? true,
    });
    return { siren, entryId: entry.id, participantId, path: `${smp.smpUrl}/${enc(participantId)}` };
  };
  const hrefs = (xml: string) =>
    [...xml.matchAll(/ServiceMetadataReference href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));

  it('serves a ServiceGroup listing the document types, valid against the SMP XSD', async () => {
    const p = await publish();
    const r = await get(p.path);
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/xml/);
    expect(xmllint(r.text, SMP_XSD)).toMatchObject({ ok: true });
    expect(r.text).toContain(
      `<ids:ParticipantIdentifier scheme="iso6523-actorid-upis">0225:${p.siren}</ids:ParticipantIdentifier>`,
    );
    const links = hrefs(r.text);
    expect(links).toHaveLength(8); // the France document types of code list v9.7
    for (const l of links) expect(l.startsWith(`${p.path}/services/busdox-docid-qns%3A%3Aurn%3A`)).toBe(true);
    expect(links.some((l) => l.includes('%23'))).toBe(true); // '#' percent-encoded
  });

  it('serves each SignedServiceMetadata: schema-valid, signature verified by xmlsec1, our AS4 endpoint', async () => {
    const p = await publish({ docGroups: ['france', 'ubl-invoice'] });
    const links = hrefs((await get(p.path)).text);
    expect(links).toHaveLength(10);
    const apCert = certificateBase64(smp.options.apCertificatePem);
    const smpCert = certificateBase64(smp.options.smpCertPem);
    for (const link of links) {
      const r = await get(link);
      expect(r.status, link).toBe(200);
      expect(xmllint(r.text, SMP_XSD), link).toMatchObject({ ok: true });
      const v = xmlsecVerify(r.text);
      expect(v.ok, v.output).toBe(true);
      const docId = decodeURIComponent(link.split('/services/')[1]!).split('::').slice(1).join('::');
      expect(r.text).toContain(
        `<ids:DocumentIdentifier scheme="busdox-docid-qns">${docId.replaceAll('&', '&amp;')}</ids:DocumentIdentifier>`,
      );
      expect(r.text).toContain('transportProfile="peppol-transport-as4-v2_0"');
      expect(r.text).toContain('<wsa:Address>https://ap.example.test/as4</wsa:Address>');
      expect(r.text).toContain(`<smp:Certificate>${apCert}</smp:Certificate>`);
      // RSA-SHA256, SHA-256, inclusive C14N, and only the certificate in X509Data (no IssuerSerial).
      expect(r.text).toContain('Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"');
      expect(r.text).toContain('<DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>');
      expect(r.text).toContain('<CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>');
      expect(r.text).toContain(`<X509Data><X509Certificate>${smpCert}</X509Certificate></X509Data>`);
      expect(r.text).toContain('<Reference URI="">');
    }
  });

  it('a tampered document no longer verifies (the check is real)', async () => {
    const p = await publish();
    const doc = (await get(hrefs((await get(p.path)).text)[0]!)).text;
    expect(xmlsecVerify(doc).ok).toBe(true);
    expect(xmlsecVerify(doc.replace('https://ap.example.test/as4', 'https://evil.example/as4')).ok).toBe(false);
  });

  it('reads participant ids case-insensitively, with or without percent-encoding', async () => {
    const p = await publish();
    for (const path of [
      `ISO6523-ACTORID-UPIS::0225:${p.siren}`,
      `iso6523-actorid-upis%3a%3a0225%3a${p.siren}`,
      `iso6523-actorid-upis::0225:${p.siren}`,
    ]) {
      const r = await get(`${smp.smpUrl}/${path}`);
      expect(r.status, path).toBe(200);
      expect(r.text).toContain(`>0225:${p.siren}</ids:ParticipantIdentifier>`);
    }
  });

  it('serves the participants of every address level: schema-valid, signed, found whatever the case or encoding', async () => {
    // One company's addresses besides its SIREN (domain/party/invoicing-addresses.ts): an establishment, a service
    // under it (a routing code with a dash and an underscore), a suffix; each its own participant 0225:<address>.
    const siren = makeSiren();
    const siret = siretOf(siren, '0002');
    const first = await publish({ siren, address: (s) => `${s}_${siret}` });
    const others = [
      await publish({ siren, entryId: first.entryId, address: (s) => `${s}_${siret}_ACHATS` }),
      await publish({ siren, entryId: first.entryId, address: (s) => `${s}_${siret}_Service-Achats_2` }),
      await publish({ siren, entryId: first.entryId, address: (s) => `${s}_EU` }),
    ];
    const apCert = certificateBase64(smp.options.apCertificatePem);
    for (const p of [first, ...others]) {
      const value = p.participantId.split('::')[1]!;
      expect(value).toMatch(/^0225:\d{9}_[0-9a-z_-]+$/);
      const group = await get(p.path);
      expect(group.status, p.participantId).toBe(200);
      expect(xmllint(group.text, SMP_XSD), p.participantId).toMatchObject({ ok: true });
      expect(group.text).toContain(
        `<ids:ParticipantIdentifier scheme="iso6523-actorid-upis">${value}</ids:ParticipantIdentifier>`,
      );
      const links = hrefs(group.text);
      expect(links).toHaveLength(8);
      const signed = (await get(links[0]!)).text;
      for (const link of links) {
        expect(link.startsWith(`${p.path}/services/`), link).toBe(true);
        const r = await get(link);
        expect(r.status, link).toBe(200);
        expect(xmllint(r.text, SMP_XSD), link).toMatchObject({ ok: true });
        const v = xmlsecVerify(r.text);
        expect(v.ok, `${link}: ${v.output}`).toBe(true);
        expect(r.text).toContain(
          `<ids:ParticipantIdentifier scheme="iso6523-actorid-upis">${value}</ids:ParticipantIdentifier>`,
        );
        expect(r.text).toContain(`<smp:Certificate>${apCert}</smp:Certificate>`);
      }
      const card = await get(`${smp.smpUrl}/businesscard/${enc(p.participantId)}`);
      expect(card.status, p.participantId).toBe(200);
      expect(xmllint(card.text, CARD_XSD), p.participantId).toMatchObject({ ok: true });
      expect(card.text).toContain(
        `<ParticipantIdentifier scheme="iso6523-actorid-upis">${value}</ParticipantIdentifier>`,
      );
      expect(card.text).toContain(`<Identifier scheme="FR:SIRENE">${siren}</Identifier>`);

      // Found whatever the case (Peppol identifiers ignore it) and however the path is encoded: `_` and `-` as they
      // are or percent-encoded (%5F, %2D, either case of hex digits), `:` raw or encoded.
      const upper = p.participantId.toUpperCase();
      const everyByte = (s: string, hex: (h: string) => string) =>
        [...s].map((c) => `%${hex(c.charCodeAt(0).toString(16).padStart(2, '0'))}`).join('');
      for (const path of [
        upper,
        enc(upper),
        p.participantId.replaceAll('_', '%5F').replaceAll('-', '%2D'),
        upper.replaceAll('_', '%5f').replaceAll('-', '%2d').replaceAll(':', '%3a'),
        everyByte(p.participantId, (h) => h.toUpperCase()),
      ]) {
        const r = await get(`${smp.smpUrl}/${path}`);
        expect(r.status, path).toBe(200);
        expect(r.text, path).toBe(group.text); // the same document, naming the participant in lower case
        const metadata = await get(`${smp.smpUrl}/${path}/services/${links[0]!.split('/services/')[1]}`);
        expect([metadata.status, metadata.text], path).toEqual([200, signed]); // the document xmlsec1 verified
        const sameCard = await get(`${smp.smpUrl}/businesscard/${path}`);
        expect([sameCard.status, sameCard.text], path).toEqual([200, card.text]);
      }
    }
    // The SIREN's own participant was not published: another address's does not make it one.
    expect((await get(`${smp.smpUrl}/${enc(`iso6523-actorid-upis::0225:${siren}`)}`)).status).toBe(404);
    // An address differing only by a character is another participant.
    expect((await get(`${smp.smpUrl}/${enc(`iso6523-actorid-upis::0225:${siren}_eu-`)}`)).status).toBe(404);
    expect((await get(`${smp.smpUrl}/${enc(`iso6523-actorid-upis::0225:${siren}_e_u`)}`)).status).toBe(404);
  });

  it('answers 404 for unknown and disabled participants and for document types not published, 400 for garbage', async () => {
    const p = await publish(); // france only
    const ubl = `busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1`;
    expect((await get(`${p.path}/services/${enc(ubl)}`)).status).toBe(404);
    expect((await get(`${p.path}/services/${enc('busdox-docid-qns::nope')}`)).status).toBe(404);
    expect((await get(`${p.path}/services/nope`)).status).toBe(404);
    expect((await get(`${smp.smpUrl}/${enc(`iso6523-actorid-upis::0225:${makeSiren()}`)}`)).status).toBe(404);
    expect((await get(`${smp.smpUrl}/${enc('other-scheme::0225:552032534')}`)).status).toBe(400);
    expect((await get(`${smp.smpUrl}/not-an-id`)).status).toBe(400);
    const link = hrefs((await get(p.path)).text)[0]!;
    expect((await get(link)).status).toBe(200);
    await disableParticipant(db, p.participantId, p.entryId);
    expect((await get(p.path)).status).toBe(404);
    expect((await get(link)).status).toBe(404); // even though its signed document is cached
    expect((await get(`${smp.smpUrl}/businesscard/${enc(p.participantId)}`)).status).toBe(404);
  });

  it('answers its errors as problem details: 400 for control characters or white space in an identifier, never 500', async () => {
    const p = await publish();
    const problemOf = async (url: string) => {
      const res = await fetch(url);
      const body = (await res.json()) as { status: number; code: string; detail: string };
      // As the API's OpenAPI document describes these paths (errors: application/problem+json, with their codes).
      const broken = contractViolation('GET', url, res.status, res.headers.get('content-type'), body);
      expect(broken, url).toBeUndefined();
      expect(res.headers.get('content-type'), url).toMatch(/^application\/problem\+json/);
      expect(res.headers.get('cache-control'), url).toBe('no-store');
      expect(body.status, url).toBe(res.status);
      return { status: res.status, code: body.code, detail: body.detail };
    };
    const id = `iso6523-actorid-upis::0225:${p.siren}`;
    // A NUL used to reach the store (500); a trailing newline used to be trimmed away (200 for another spelling).
    for (const [raw, shown] of [
      ['%00', 'U+0000'],
      ['%0a', 'U+000A'],
      ['%0D%0A', 'U+000D'],
      ['%09', 'U+0009'],
      ['%7F', 'U+007F'],
      ['%C2%85', 'U+0085'],
      ['%20', 'U+0020'],
      ['%C2%A0', 'U+00A0'],
    ]) {
      for (const url of [
        `${smp.smpUrl}/iso6523-actorid-upis::0225:${p.siren}${raw}`,
        `${smp.smpUrl}/${raw}${enc(id)}`,
        `${smp.smpUrl}/iso6523-actorid-upis::0225:${raw}${p.siren}`,
        `${smp.smpUrl}/businesscard/${enc(id)}${raw}`,
        `${smp.smpUrl}/${enc(id)}${raw}/services/${enc('busdox-docid-qns::x')}`,
        `${smp.smpUrl}/${enc(id)}/services/${enc('busdox-docid-qns::x')}${raw}`,
      ])
        expect(await problemOf(url), url).toEqual({
          status: 400,
          code: 'invalid-request',
          detail: expect.stringContaining(`must not contain control characters or white space (${shown} found)`),
        });
    }
    expect((await get(`${smp.smpUrl}/iso6523-actorid-upis::0225:${p.siren}`)).status).toBe(200); // the id itself
    // Not ours, or not an identifier: 404 and 400, as problems too.
    expect(await problemOf(`${smp.smpUrl}/${enc(`iso6523-actorid-upis::0225:${makeSiren()}`)}`)).toEqual({
      status: 404,
      code: 'not-found',
      detail: 'participant not found',
    });
    expect(await problemOf(`${p.path}/services/nope`)).toMatchObject({ status: 404, code: 'not-found' });
    expect(await problemOf(`${smp.smpUrl}/not-an-id`)).toMatchObject({ status: 400, code: 'invalid-request' });
    expect(await problemOf(`${smp.smpUrl}/${enc('other-scheme::0225:552032534')}`)).toMatchObject({ status: 400 });
    await disableParticipant(db, p.participantId, p.entryId);
    expect(await problemOf(`${smp.smpUrl}/businesscard/${enc(p.participantId)}`)).toMatchObject({ status: 404 });
  });

  it('lets HTTP caches keep documents and revalidate them with a strong ETag; a change gives a new one', async () => {
    const p = await publish();
    const first = await fetch(p.path);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    const again = await fetch(p.path, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const link = hrefs(await first.text())[0]!;
    const metadata = await fetch(link);
    expect(metadata.headers.get('etag')).not.toBe(etag);
    expect((await fetch(link, { headers: { 'if-none-match': metadata.headers.get('etag')! } })).status).toBe(304);

    await publishParticipant(db, {
      participantId: p.participantId,
      workspaceId: ws,
      entryId: p.entryId,
      docGroups: ['ubl-invoice'],
      visibility: 'smp+sml+peppol',
      directory: true,
    });
    const changed = await fetch(p.path, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    await disableParticipant(db, p.participantId, p.entryId);
    const gone = await fetch(p.path, { headers: { 'if-none-match': etag } });
    expect(gone.status).toBe(404);
    expect(gone.headers.get('cache-control')).toBe('no-store');
  });

  it('follows a change of document groups at once', async () => {
    const p = await publish();
    expect(hrefs((await get(p.path)).text)).toHaveLength(8);
    await publishParticipant(db, {
      participantId: p.participantId,
      workspaceId: ws,
      entryId: p.entryId,
      docGroups: ['ubl-invoice'],
      visibility: 'smp+sml+peppol',
      directory: true,
    });
    expect(hrefs((await get(p.path)).text)).toHaveLength(2);
  });

  it('serves a schema-valid business card: name, FR, SIREN, VAT, registration date', async () => {
    const p = await publish();
    const r = await get(`${smp.smpUrl}/businesscard/${enc(p.participantId)}`);
    expect(r.status).toBe(200);
    expect(xmllint(r.text, CARD_XSD)).toMatchObject({ ok: true });
    const vat = (party(p.siren).tax_id as { code: string }).code;
    expect(r.text).toContain(
      `<ParticipantIdentifier scheme="iso6523-actorid-upis">0225:${p.siren}</ParticipantIdentifier>`,
    );
    expect(r.text).toContain(`<BusinessEntity registrationDate="${new Date().toISOString().slice(0, 10)}">`);
    expect(r.text).toContain('<Name>Boulangerie Exemple SAS</Name><CountryCode>FR</CountryCode>');
    expect(r.text).toContain(`<Identifier scheme="FR:SIRENE">${p.siren}</Identifier>`);
    expect(r.text).toContain(`<Identifier scheme="FR:VAT">FR${vat}</Identifier>`);
    expect(r.text).not.toContain('Élodie'); // no personal data in a public card
  });

  it('serves readable XML for a name stored with a control character before the party schema refused them', async () => {
    const p = await publish();
    await db.query(`UPDATE entries SET data = jsonb_set(data, '{name}', $2::jsonb) WHERE id = $1`, [
      p.entryId,
      JSON.stringify('Evil\u0007Bell & <Co>'),
    ]);
    const r = await get(`${smp.smpUrl}/businesscard/${enc(p.participantId)}`);
    expect(xmllint(r.text, CARD_XSD)).toMatchObject({ ok: true });
    expect(r.text).toContain('<Name>Evil\uFFFDBell &amp; &lt;Co&gt;</Name>');
  });

  it('has no business card for parties kept out of the Directory, but still serves their SMP data', async () => {
    for (const o of [{ visibility: 'smp' as const }, { visibility: 'smp+sml' as const }, { directory: false }]) {
      const p = await publish(o);
      expect((await get(`${smp.smpUrl}/businesscard/${enc(p.participantId)}`)).status, JSON.stringify(o)).toBe(404);
      expect((await get(p.path)).status).toBe(200);
    }
  });

  it('with a record cache, still follows changes made in this process at once', async () => {
    const cached = await startSmpServer(db, {}, { recordCacheMs: 60_000 });
    try {
      const p = await publish();
      const url = `${cached.smpUrl}/${enc(p.participantId)}`;
      expect((await Promise.all([get(url), get(url), get(url)])).map((r) => r.status)).toEqual([200, 200, 200]);
      await disableParticipant(db, p.participantId, p.entryId);
      expect((await get(url)).status).toBe(404);
      await publishParticipant(db, {
        participantId: p.participantId,
        workspaceId: ws,
        entryId: p.entryId,
        docGroups: ['ubl-invoice'],
        visibility: 'smp',
        directory: false,
      });
      expect(hrefs((await get(url)).text)).toHaveLength(2);
    } finally {
      await cached.close();
    }
  });

  it('generates development certificates once and reuses them', () => {
    const again = resolveSmpOptions(smp.config);
    expect(again.smpCertPem).toBe(smp.options.smpCertPem);
    expect(again.apCertificatePem).toBe(smp.options.apCertificatePem);
    expect(again.apEndpointUrl).toBe(`${smp.baseUrl}/as4`);
    expect(new crypto.X509Certificate(again.smpCertPem).serialNumber.length).toBeLessThanOrEqual(16);
  });

  it('reads configured PEM files, and refuses a key without its certificate or not matching it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smp-pem-'));
    try {
      const a = generateSelfSigned('configured SMP');
      const b = generateSelfSigned('other');
      const write = (name: string, pem: string) => (fs.writeFileSync(path.join(dir, name), pem), path.join(dir, name));
      const base = { dataDir: dir, publicBaseUrl: 'https://pa.example' };
      const o = smpOptionsFromFiles({
        ...base,
        SMP_KEY_FILE: write('k', a.keyPem),
        SMP_CERT_FILE: write('c', a.certPem),
        AP_CERT_FILE: write('ap', b.certPem),
        AP_ENDPOINT_URL: 'https://ap.example/as4',
      });
      expect(o).toMatchObject({
        smpKeyPem: a.keyPem,
        smpCertPem: a.certPem,
        apCertificatePem: b.certPem,
        apEndpointUrl: 'https://ap.example/as4',
      });
      expect(() => smpOptionsFromFiles({ ...base, SMP_KEY_FILE: path.join(dir, 'k') })).toThrow(/both or neither/);
      expect(() =>
        smpOptionsFromFiles({ ...base, SMP_KEY_FILE: path.join(dir, 'k'), SMP_CERT_FILE: path.join(dir, 'ap') }),
      ).toThrow(/does not match/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
