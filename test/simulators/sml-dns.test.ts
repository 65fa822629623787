// The SML simulator at scale and as a DNS zone: 100,000 participants bulk-seeded over the admin route, one SMP's
// 60,000 listed through SOAP List pages, U-NAPTR lookups with Node's own resolver (and raw DNS over UDP and TCP for
// the answers it does not expose), the admin routes' refusals, and the journal beside the state file.
// SML_DNS_TIMINGS=1 prints the times measured (not asserted).
import dgram from 'node:dgram';
import dns from 'node:dns';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmlSimulator, type SmlSimulator } from '../../simulators/sml';
import { participantLabel } from '../../simulators/sml/dns-name';

const SOAP = 'http://schemas.xmlsoap.org/soap/envelope/';
const LRS = 'http://busdox.org/serviceMetadata/locator/1.0/';
const IDS = 'http://busdox.org/transport/identifiers/1.0/';
// Verbatim from the WSDL, its nine blanks included.
const LIST_ACTION = 'http://busdox.org/serviceMetadata/ManageBusinessIdentifierService/1.0/         :listIn';
const SCHEME = 'iso6523-actorid-upis';
const SMPS = { 'SMP-A': 60_000, 'SMP-B': 25_000, 'SMP-C': 15_000 };
const URL_A = 'https://smp-a.example.test/';
const timings = (line: string) => process.env.SML_DNS_TIMINGS && console.info(`[sml-dns] ${line}`);

/** Distinct 0225 values per SMP: SMP-A's are 1xxxxxxxx, SMP-B's 2xxxxxxxx, … */
const valuesOf = (smp: keyof typeof SMPS) => {
  const base = (Object.keys(SMPS).indexOf(smp) + 1) * 100_000_000;
  return Array.from({ length: SMPS[smp] }, (_, i) => `0225:${base + i}`);
};

/** A resolver of its own per lookup, as a fresh client: no answer cached from before a change can hide it. */
async function naptr(sim: SmlSimulator, value: string): Promise<dns.NaptrRecord[]> {
  const r = new dns.promises.Resolver({ timeout: 1000, tries: 1 });
  r.setServers([`${sim.dnsAddress}:${sim.dnsPort}`]);
  return r.resolveNaptr(`${participantLabel(value)}.${SCHEME}.${sim.dnsZone}`);
}
const errCode = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: NodeJS.ErrnoException) => e.code,
  );

async function admin(sim: SmlSimulator, method: string, route: string, body?: unknown) {
  const res = await fetch(`${sim.url}/_simulator/${route}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** One raw SOAP List page: its participant values and NextPageIdentifier. */
async function listPage(sim: SmlSimulator, smpId: string, next?: string) {
  const nextEl = next === undefined ? '' : `<NextPageIdentifier>${next}</NextPageIdentifier>`;
  const res = await fetch(sim.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${LIST_ACTION}"` },
    body: `<s:Envelope xmlns:s="${SOAP}"><s:Body><PageRequest xmlns="${LRS}"><ServiceMetadataPublisherID>${smpId}</ServiceMetadataPublisherID>${nextEl}</PageRequest></s:Body></s:Envelope>`,
  });
  expect(res.status).toBe(200);
  const doc = new DOMParser().parseFromString(await res.text(), 'text/xml');
  const values = Array.from(doc.getElementsByTagNameNS(IDS, 'ParticipantIdentifier')).map((e) => e.textContent!);
  return { values, next: doc.getElementsByTagNameNS(LRS, 'NextPageIdentifier')[0]?.textContent ?? undefined };
}

/** A raw query over UDP: the answer, or undefined when none comes within 300 ms. */
function udp(sim: SmlSimulator, msg: Buffer): Promise<Buffer | undefined> {
  const s = dgram.createSocket('udp4');
  return new Promise((resolve) => {
    const done = (m?: Buffer) => {
      clearTimeout(timer);
      s.close();
      resolve(m);
    };
    const timer = setTimeout(done, 300);
    s.on('message', (m) => done(m));
    s.send(msg, sim.dnsPort, sim.dnsAddress);
  });
}
const query = (name: string, type: dnsPacket.RecordType = 'NAPTR', id = 7) =>
  dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name }] });
const tcpQuery = (name: string, id: number) =>
  dnsPacket.streamEncode({ type: 'query', id, questions: [{ type: 'NAPTR', name }] });
const rcodeOf = (b: Buffer) => b[3]! & 0x0f;

describe('SML simulator: 100,000 participants, List pages and U-NAPTR', () => {
  let dir: string;
  let sim: SmlSimulator;
  const stateFile = () => path.join(dir, 'sml.json');

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sml-dns-'));
    sim = await startSmlSimulator({ port: 0, stateFile: stateFile(), smpUrls: { 'SMP-A': URL_A } });
  });
  afterAll(async () => {
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names participants as DOMAIN.md’s vector says', () => {
    expect(participantLabel('0088:123abc')).toBe('y7dzfxaf3d4cjz4kcgrxtec6twvcga4ky7zwa5boif6mswd4tdrq');
    expect(participantLabel('0088:123ABC')).toBe(participantLabel('0088:123abc'));
    expect(sim.dnsName('iso6523-actorid-upis::0088:123ABC')).toBe(
      'y7dzfxaf3d4cjz4kcgrxtec6twvcga4ky7zwa5boif6mswd4tdrq.iso6523-actorid-upis.sml.peppol.localhost',
    );
  });

  it('bulk-seeds 100,000, lists one SMP’s 60,000 page by page, each once, and resolves them', async () => {
    let t = performance.now();
    for (const smp of Object.keys(SMPS) as (keyof typeof SMPS)[]) {
      const r = await admin(sim, 'POST', 'participants', { smpId: smp, participants: valuesOf(smp) });
      expect(r).toEqual({ status: 200, body: { smpId: smp, participants: SMPS[smp], added: SMPS[smp], moved: 0 } });
    }
    timings(`bulk seed of 100,000 over HTTP: ${(performance.now() - t).toFixed(0)} ms`);

    t = performance.now();
    const seen: string[] = [];
    let pages = 0;
    let next: string | undefined;
    do {
      const page = await listPage(sim, 'SMP-A', next);
      seen.push(...page.values);
      pages++;
      next = page.next;
    } while (next !== undefined);
    const ms = performance.now() - t;
    timings(`List SMP-A: ${pages} pages in ${ms.toFixed(0)} ms, ${(ms / pages).toFixed(2)} ms a page`);
    expect(seen).toHaveLength(60_000);
    expect(new Set(seen)).toEqual(new Set(valuesOf('SMP-A')));

    t = performance.now();
    const sample = valuesOf('SMP-A').filter((_, i) => i % 6000 === 0);
    for (const v of sample)
      expect(await naptr(sim, v)).toEqual([
        { order: 100, preference: 10, flags: 'U', service: 'Meta:SMP', regexp: `!^.*$!${URL_A}!`, replacement: '' },
      ]);
    timings(`NAPTR lookup (new Resolver each): ${((performance.now() - t) / sample.length).toFixed(2)} ms`);
    // An SMP without a URL of its own: the documented default.
    expect((await naptr(sim, '0225:200000042'))[0]!.regexp).toBe('!^.*$!https://smp-b.smp.invalid!');
    expect(await errCode(naptr(sim, '0225:999999999'))).toBe('ENOTFOUND');
  });

  it('follows a participant moved to another SMP, and one deleted', async () => {
    const v = '0225:100000007';
    expect((await admin(sim, 'PUT', 'smps/SMP-B', { url: 'https://smp-b.example.test' })).status).toBe(200);
    expect(await admin(sim, 'PUT', `participants/${v}`, { smpId: 'SMP-B' })).toEqual({
      status: 200,
      body: { participantId: `${SCHEME}::${v}`, smpId: 'SMP-B', previousSmpId: 'SMP-A' },
    });
    expect((await naptr(sim, v))[0]!.regexp).toBe('!^.*$!https://smp-b.example.test!');
    expect(sim.participants('SMP-A')).toHaveLength(59_999);
    expect((await listPage(sim, 'SMP-B')).values).toContain(v);
    expect((await admin(sim, 'GET', `participants/${SCHEME}%3A%3A${v}`)).body).toMatchObject({
      smpId: 'SMP-B',
      smpUrl: 'https://smp-b.example.test',
      dnsName: sim.dnsName(v),
    });
    expect((await admin(sim, 'DELETE', `participants/${v}`)).status).toBe(204);
    expect(await errCode(naptr(sim, v))).toBe('ENOTFOUND');
    expect((await admin(sim, 'DELETE', `participants/${v}`)).status).toBe(404);
  });

  it('answers as an authoritative zone: NXDOMAIN, NODATA, REFUSED, FORMERR, any case, over TCP', async () => {
    const known = sim.dnsName('0225:100000001');
    const unknown = dnsPacket.decode((await udp(sim, query(sim.dnsName('0225:999999999'))))!);
    expect(unknown).toMatchObject({ rcode: 'NXDOMAIN', flag_aa: true, answers: [] });
    expect(unknown.authorities?.[0]).toMatchObject({ type: 'SOA', name: 'sml.peppol.localhost' });
    const txt = dnsPacket.decode((await udp(sim, query(known, 'TXT')))!);
    expect(txt).toMatchObject({ rcode: 'NOERROR', flag_aa: true, answers: [] });
    const r = new dns.promises.Resolver({ timeout: 1000, tries: 1 });
    r.setServers([`${sim.dnsAddress}:${sim.dnsPort}`]);
    expect(await errCode(r.resolveTxt(known))).toBe('ENODATA');
    expect(await errCode(r.resolveNaptr('example.com'))).toBe('EREFUSED');
    const upper = dnsPacket.decode((await udp(sim, query(known.toUpperCase())))!);
    expect(upper.answers).toMatchObject([{ type: 'NAPTR', name: known.toUpperCase() }]);
    // Garbage: a query header gets FORMERR, anything else nothing; the responder keeps answering.
    const bad = (await udp(sim, Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 0xff, 0xff])))!;
    expect([bad.readUInt16BE(0), rcodeOf(bad)]).toEqual([0x1234, 1]);
    expect(await udp(sim, Buffer.from([1, 2, 3]))).toBeUndefined();
    expect(await udp(sim, Buffer.alloc(600, 0xab))).toBeUndefined(); // its QR bit says response: never answered
    expect(rcodeOf((await udp(sim, query(known)))!)).toBe(0);
    // TCP: two length-prefixed queries on one connection.
    const answers = await new Promise<dnsPacket.Packet[]>((resolve, reject) => {
      const got: dnsPacket.Packet[] = [];
      let buf = Buffer.alloc(0);
      const s = net.connect(sim.dnsPort, sim.dnsAddress, () =>
        s.write(Buffer.concat([tcpQuery(known, 1), tcpQuery(`x.${sim.dnsZone}`, 2)])),
      );
      s.on('error', reject);
      s.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          got.push(dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0))));
          buf = buf.subarray(2 + buf.readUInt16BE(0));
        }
        if (got.length < 2) return;
        resolve(got);
        s.end();
      });
    });
    expect(answers.map((a) => [a.id, (a as any).rcode, a.answers?.length])).toEqual([
      [1, 'NOERROR', 1],
      [2, 'NXDOMAIN', 0],
    ]);
  });

  it('refuses bad admin input with a reason, and seeds nothing then', async () => {
    const bulk = await admin(sim, 'POST', 'participants', { smpId: 'SMP-D', participants: ['0225:1', 'nope', '9:x'] });
    expect(bulk.status).toBe(400);
    expect(bulk.body.error).toMatch(/nothing seeded: participants\.1: .*ICD:code.*participants\.2/);
    expect(sim.participants('SMP-D')).toEqual([]);
    for (const [method, route, body, why] of [
      ['POST', 'participants', '{"smpId":', /not JSON/],
      ['POST', 'participants', { smpId: 'bad id', participants: ['0225:1'] }, /smpId: an SMP id/],
      ['POST', 'participants', { smpId: 'SMP-D', participants: [] }, /participants/],
      ['POST', 'participants', { smpId: 'SMP-D', participants: ['0225:1'], extra: 1 }, /extra/],
      ['PUT', 'smps/SMP-D', { url: 'ftp://x' }, /not an http\(s\) URL/],
      ['PUT', 'smps/SMP-D', { url: 'https://x/!' }, /"!"/],
      ['PUT', 'smps/SMP-D', { url: 'relative' }, /not an absolute URL/],
      ['PUT', 'participants/0225:100000002', { smpId: '' }, /smpId/],
      ['PUT', 'participants/other::0225:1', { smpId: 'SMP-D' }, /unsupported participant identifier scheme/],
      ['GET', 'participants/%E0%A4%A', undefined, /percent-encoding/],
    ] as const) {
      const r = await admin(sim, method, route, body);
      expect([r.status, r.body.error], `${method} ${route}`).toEqual([400, expect.stringMatching(why)]);
    }
    expect((await admin(sim, 'PUT', 'participants/0225:999999999', { smpId: 'SMP-D' })).status).toBe(404);
    expect((await admin(sim, 'PATCH', 'participants/0225:100000002', {})).status).toBe(405);
    expect((await admin(sim, 'GET', 'nothing')).status).toBe(404);
    expect(sim.ownerOf('0225:100000002')).toBe('SMP-A');
  });

  it('keeps every change through the journal, compacted, across a restart', async () => {
    // The first bulk seed went past the compaction threshold; the journal has stayed below the snapshot's size since.
    const journal = `${stateFile()}.journal`;
    expect(fs.statSync(journal).size).toBeGreaterThan(0);
    expect(fs.statSync(journal).size).toBeLessThan(fs.statSync(stateFile()).size);
    expect(fs.readFileSync(stateFile(), 'utf8')).toContain(`${SCHEME}::0225:100000001`);
    const snapshotBefore = fs.readFileSync(stateFile(), 'utf8');
    sim.seedParticipant('SMP-C', '0225:100000003');
    expect(fs.readFileSync(stateFile(), 'utf8')).toBe(snapshotBefore); // a change is appended, not rewritten
    expect(fs.readFileSync(journal, 'utf8').trimEnd().split('\n').at(-1)).toBe(
      JSON.stringify({ op: 'own', smp: 'SMP-C', ids: [`${SCHEME}::0225:100000003`] }),
    );
    await sim.close();
    fs.appendFileSync(journal, '{"op":"drop","ids":["iso6523-actorid-up'); // torn by a crash: ignored
    const t = performance.now();
    sim = await startSmlSimulator({ port: 0, stateFile: stateFile() });
    timings(`restart with 100,000 participants: ${(performance.now() - t).toFixed(0)} ms`);
    expect(fs.statSync(journal).size).toBe(0); // replayed into a new snapshot
    expect(sim.participants('SMP-A')).toHaveLength(59_998);
    expect(sim.participants('SMP-B')).toHaveLength(25_000);
    expect(sim.ownerOf('0225:100000003')).toBe('SMP-C');
    expect(sim.smpUrl('SMP-A')).toBe(URL_A); // kept in the state file
    expect((await naptr(sim, '0225:100000003'))[0]!.regexp).toBe('!^.*$!https://smp-c.smp.invalid!');
  });

  it('loads a state file written before the journal, and refuses a journal broken in its middle', async () => {
    const old = path.join(dir, 'old.json');
    const participants = { OLD: [`${SCHEME}::0225:552032534`] };
    fs.writeFileSync(old, JSON.stringify({ participants }, null, 2));
    const prev = await startSmlSimulator({ port: 0, stateFile: old });
    expect(prev.ownerOf('0225:552032534')).toBe('OLD');
    expect((await naptr(prev, '0225:552032534'))[0]!.regexp).toBe('!^.*$!https://old.smp.invalid!');
    await prev.close();
    fs.writeFileSync(`${old}.journal`, '{"op":"drop","ids":[]}\nnot json\n{"op":"drop","ids":[]}\n');
    await expect(startSmlSimulator({ port: 0, stateFile: old })).rejects.toThrow(/old\.json\.journal:2/);
  });
});
