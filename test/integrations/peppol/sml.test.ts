// The SML client against the SML simulator, over real HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSmlClient,
  faultOf,
  SML_OPERATIONS,
  SmlError,
  type SmlClient,
} from '../../../integrations/peppol/sml-client';
import { NS } from '../../../integrations/peppol/soap';
import { PEPPOL_XSD, xsdErrors } from '../../../integrations/peppol/xsd';
import { startSmlSimulator, type SmlSimulator } from '../../../simulators/sml';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';

const SMP = 'TEST-SMP';
const A = 'iso6523-actorid-upis::0225:552032534';

const rejection = async (p: Promise<unknown>): Promise<SmlError> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SmlError);
  return err as SmlError;
};

describe('SML client ↔ simulator', () => {
  let dir: string;
  let sim: SmlSimulator;
  let sml: SmlClient;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sml-sim-'));
    sim = await startSmlSimulator({ host: '127.0.0.1', port: 0, stateFile: path.join(dir, 'sml.json'), pageSize: 2 });
    sml = createSmlClient({ url: sim.url, smpId: SMP });
  });
  afterAll(async () => {
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers /health', async () => {
    expect((await fetch(`${sim.url}/health`)).status).toBe(200);
  });

  it('creates a participant, lowercased, for our SMP and lists it', async () => {
    await sml.create('iso6523-actorid-upis::0225:552032534');
    expect(sim.participants(SMP)).toEqual([A]);
    expect(sim.participants('OTHER-SMP')).toEqual([]);
    expect(await sml.list()).toEqual([A]);
  });

  it('answers a duplicate with a BadRequestFault "already exist", not retryable, for any SMP', async () => {
    const dup = await rejection(sml.create('0225:552032534'));
    expect(dup).toMatchObject({ kind: 'BadRequestFault', retryable: false, alreadyExists: true, status: 500 });
    expect(dup.message).toMatch(/already exist/);
    const other = await rejection(createSmlClient({ url: sim.url, smpId: 'OTHER-SMP' }).create(A));
    expect(other.alreadyExists).toBe(true);
    expect(sim.participants(SMP)).toEqual([A]);
  });

  it('lists page by page (NextPageIdentifier)', async () => {
    const ids = ['0225:100000009', '0225:200000008', '0225:300000007'].map((v) => `iso6523-actorid-upis::${v}`);
    for (const id of ids) await sml.create(id);
    const first = await sml.listPage();
    expect(first.participants).toHaveLength(2);
    expect(first.next).toBeDefined();
    expect(await sml.list()).toEqual([...ids, A].sort());
    for (const id of ids) await sml.delete(id);
  });

  it('deletes, then answers NotFoundFault for an unknown participant', async () => {
    const foreign = createSmlClient({ url: sim.url, smpId: 'OTHER-SMP' });
    expect((await rejection(foreign.delete(A))).kind).toBe('NotFoundFault'); // not its participant
    await sml.delete(A);
    expect(sim.participants(SMP)).toEqual([]);
    const gone = await rejection(sml.delete(A));
    expect(gone).toMatchObject({ kind: 'NotFoundFault', retryable: false, alreadyExists: false });
  });

  it('keeps its participants in the state file across restarts', async () => {
    await sml.create('0225:420495178');
    await sim.close();
    sim = await startSmlSimulator({ port: 0, stateFile: path.join(dir, 'sml.json'), pageSize: 2 });
    sml = createSmlClient({ url: sim.url, smpId: SMP });
    expect(sim.participants(SMP)).toEqual(['iso6523-actorid-upis::0225:420495178']);
    await sml.delete('0225:420495178');
  });

  it('makes transport failures retryable: injected 503, closed port, timeout', async () => {
    sim.setFaults({ rate: 1, status: 503 });
    expect(await rejection(sml.create('0225:552032534'))).toMatchObject({ kind: 'http', status: 503, retryable: true });
    sim.setFaults({ latencyMs: 300 });
    const slow = createSmlClient({ url: sim.url, smpId: SMP, timeoutMs: 50 });
    expect(await rejection(slow.list())).toMatchObject({ kind: 'network', retryable: true });
    sim.setFaults(undefined);
    const down = createSmlClient({ url: 'http://127.0.0.1:1', smpId: SMP });
    expect(await rejection(down.list())).toMatchObject({ kind: 'network', retryable: true });
  });

  describe('raw SOAP requests', () => {
    const envelope = (body: string, ns: string = NS.soap) =>
      `<?xml version="1.0"?><s:Envelope xmlns:s="${ns}"><s:Body>${body}</s:Body></s:Envelope>`;
    const create = (inner: string) =>
      `<CreateParticipantIdentifier xmlns="${NS.lrs}">${inner}</CreateParticipantIdentifier>`;
    const validBody = create(
      `<ServiceMetadataPublisherID>${SMP}</ServiceMetadataPublisherID><ParticipantIdentifier xmlns="${NS.ids}" scheme="iso6523-actorid-upis">0225:356000000</ParticipantIdentifier>`,
    );
    const valid = envelope(validBody);
    const post = async (body: string, soapAction: string | null = `"${SML_OPERATIONS.Create.soapAction}"`) => {
      const res = await fetch(`${sim.url}/manageparticipantidentifier`, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8', ...(soapAction !== null && { soapaction: soapAction }) },
        body,
      });
      return { status: res.status, text: await res.text() };
    };

    it('needs the WSDL SOAPAction verbatim, 9 blanks included', async () => {
      expect(SML_OPERATIONS.Create.soapAction).toBe(
        'http://busdox.org/serviceMetadata/ManageBusinessIdentifierService/1.0/         :createIn',
      );
      const tidy = await post(
        valid,
        '"http://busdox.org/serviceMetadata/ManageBusinessIdentifierService/1.0/:createIn"',
      );
      expect(tidy.status).toBe(500);
      expect(tidy.text).toMatch(/<faultcode>S:Client<\/faultcode>.*SOAPAction/s);
      expect((await post(valid, null)).status).toBe(500); // no SOAPAction at all
      const ok = await post(valid);
      expect(ok.status).toBe(200);
      expect(sim.participants(SMP)).toContain('iso6523-actorid-upis::0225:356000000');
      await sml.delete('0225:356000000');
    });

    it('answers the WSDL fault shape: FaultMessage inside the typed fault element', async () => {
      await post(valid);
      const dup = await post(valid);
      expect(dup.status).toBe(500);
      expect(dup.text).toContain(`<BadRequestFault xmlns="${NS.lrs}"><FaultMessage>`);
      await sml.delete('0225:356000000');
    });

    it('rejects malformed envelopes with a SOAP fault', async () => {
      const cases = [
        '<not xml',
        envelope(validBody, 'http://www.w3.org/2003/05/soap-envelope'), // SOAP 1.2
        envelope(create(`<ServiceMetadataPublisherID>${SMP}</ServiceMetadataPublisherID>`)), // no participant
        envelope(
          create(
            `<ParticipantIdentifier xmlns="${NS.ids}" scheme="iso6523-actorid-upis">0225:1</ParticipantIdentifier>`,
          ),
        ),
        envelope(validBody.replaceAll(NS.lrs, 'urn:wrong')), // wrong namespace
        envelope(validBody.replace('iso6523-actorid-upis"', 'other-scheme"')),
        envelope(''),
      ];
      for (const body of cases) {
        const r = await post(body);
        expect(r.status, body).toBe(500);
        expect(r.text, body).toMatch(/<S:Fault><faultcode>S:(Client|VersionMismatch)<\/faultcode>/);
      }
      expect(sim.participants(SMP)).toEqual([]);
      expect(
        (
          await fetch(`${sim.url}/manageparticipantidentifier`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          })
        ).status,
      ).toBe(415);
    });
  });

  it('validates the body against peppol-sml-types-v1.xsd, and its own List answers pass it too', async () => {
    const raw = (body: string, op: keyof typeof SML_OPERATIONS) =>
      fetch(sim.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${SML_OPERATIONS[op].soapAction}"` },
        body: `<s:Envelope xmlns:s="${NS.soap}"><s:Body>${body}</s:Body></s:Envelope>`,
      }).then(async (r) => ({ status: r.status, text: await r.text() }));
    // Passes the structural checks, but the schema allows no attribute there.
    const bad = await raw(
      `<CreateParticipantIdentifier xmlns="${NS.lrs}" extra="1"><ServiceMetadataPublisherID>${SMP}</ServiceMetadataPublisherID><ParticipantIdentifier xmlns="${NS.ids}" scheme="iso6523-actorid-upis">0225:552032534</ParticipantIdentifier></CreateParticipantIdentifier>`,
      'Create',
    );
    expect(bad.status).toBe(500);
    expect(bad.text).toMatch(
      /<faultcode>S:Client<\/faultcode><faultstring>the CreateParticipantIdentifier does not match peppol-sml-types-v1.xsd: .*extra/s,
    );
    expect(sim.participants(SMP)).not.toContain(A);
    await sml.create(A);
    const page = await raw(
      `<PageRequest xmlns="${NS.lrs}"><ServiceMetadataPublisherID>${SMP}</ServiceMetadataPublisherID></PageRequest>`,
      'List',
    );
    expect(page.status).toBe(200);
    const body = new DOMParser()
      .parseFromString(page.text, 'text/xml')
      .getElementsByTagNameNS(NS.lrs, 'ParticipantIdentifierPage')[0]!;
    expect(await xsdErrors(new XMLSerializer().serializeToString(body), PEPPOL_XSD.sml)).toEqual([]);
    await sml.delete(A);
  });

  it('answers UnauthorizedFault for an SMP id outside the allow-list, when one is set', async () => {
    const strict = await startSmlSimulator({ port: 0, allowedSmpIds: [SMP] });
    try {
      await createSmlClient({ url: strict.url, smpId: SMP }).create(A);
      const err = await rejection(createSmlClient({ url: strict.url, smpId: 'OTHER-SMP' }).delete(A));
      expect(err).toMatchObject({ kind: 'UnauthorizedFault', retryable: false });
      expect(err.message).toMatch(/not authorized.*OTHER-SMP/);
      expect(strict.participants(SMP)).toEqual([A]);
    } finally {
      await strict.close();
    }
  });

  it("reads each WSDL fault: client faults are final, the SML's internal error and soap:Server are retried", () => {
    const fault = (code: string, detail = '') =>
      `<e:Envelope xmlns:e="${NS.soap}"><e:Body><e:Fault><faultcode>e:${code}</faultcode><faultstring>boom</faultstring>${detail}</e:Fault></e:Body></e:Envelope>`;
    const typed = (name: string) =>
      fault(
        'Client',
        `<detail><x:${name} xmlns:x="${NS.lrs}"><x:FaultMessage>msg ${name}</x:FaultMessage></x:${name}></detail>`,
      );
    expect(faultOf(typed('UnauthorizedFault'))).toMatchObject({
      kind: 'UnauthorizedFault',
      retryable: false,
      message: 'msg UnauthorizedFault',
    });
    expect(faultOf(typed('NotFoundFault'))).toMatchObject({ kind: 'NotFoundFault', retryable: false });
    expect(faultOf(typed('InternalErrorFault'))).toMatchObject({ kind: 'InternalErrorFault', retryable: true });
    expect(faultOf(fault('Server'))).toMatchObject({ kind: 'SoapFault', retryable: true });
    expect(faultOf(fault('Client'))).toMatchObject({ kind: 'SoapFault', retryable: false });
    expect(faultOf('<html>502 Bad Gateway</html>')).toBeUndefined();
  });
});
