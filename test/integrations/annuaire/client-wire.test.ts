// Every request the client puts on the wire, recorded by a proxy in front of the simulator, checked against the
// official OpenAPI file itself: operation (method + path template under the server's base path), path, query and
// header parameters, and the JSON body against the operation's requestBody schema.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnnuaireClient, today, type AnnuaireClient } from '../../../integrations/annuaire/client';
import { BASE_PATH, startAnnuaireSimulator, type AnnuaireSimulator } from '../../../simulators/annuaire';
import { ANNUAIRE_SPEC_FILE, openApiToJsonSchema } from '../../../simulators/annuaire/spec';
import { makeSiren } from '../../../bin/stack/sample-parties';

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Param = { name: string; in: string; required?: boolean; explode?: boolean; schema: { type?: string } };
type Operation = {
  operationId?: string;
  parameters?: ({ $ref: string } | Param)[];
  requestBody?: { required?: boolean };
};

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;
const doc = JSON.parse(fs.readFileSync(ANNUAIRE_SPEC_FILE, 'utf8')) as {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, Param> };
};
// Bodies are checked as sent; parameters arrive as text, so that one coerces ("42" for an integer).
function validators(coerce: boolean) {
  const ajv = new Ajv({ strict: false, allErrors: true, ...(coerce && { coerceTypes: true }) });
  addFormats(ajv);
  ajv.addSchema({ $id: 'ppf', ...openApiToJsonSchema(doc) });
  const compiled = new Map<string, ValidateFunction>();
  return (ref: string) => compiled.get(ref) ?? compiled.set(ref, ajv.compile({ $ref: ref })).get(ref)!;
}
const bodyValidator = validators(false);
const paramValidator = validators(true);
const pointer = (...parts: string[]) =>
  `ppf#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
const errorsText = (v: ValidateFunction) =>
  (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');

const basePath = new URL(doc.servers[0]!.url).pathname;
const templates = Object.keys(doc.paths).map((t) => ({
  t,
  re: new RegExp(
    `^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{([^}]+)\\?\}/g, (_, n) => `(?<${n.replace(/-/g, '_')}>[^/]+)`)}$`,
  ),
}));

/** Problems of one recorded request against the spec; [] when it conforms. */
function conformance(r: Recorded): string[] {
  const url = new URL(r.url, 'http://proxy');
  if (!url.pathname.startsWith(basePath)) return [`${url.pathname} is outside the base path ${basePath}`];
  const path = decodeURIComponent(url.pathname.slice(basePath.length));
  const method = r.method.toLowerCase();
  const hit = templates.map(({ t, re }) => ({ t, m: re.exec(path) })).find(({ t, m }) => m && doc.paths[t]![method]);
  if (!hit) return [`${r.method} ${path} is no operation of the spec`];
  const op = doc.paths[hit.t]![method]!;
  const errors: string[] = [];
  const params = (op.parameters ?? []).map((p, i) =>
    '$ref' in p
      ? {
          p: doc.components.parameters[p.$ref.split('/').pop()!]!,
          at: pointer('components', 'parameters', p.$ref.split('/').pop()!, 'schema'),
        }
      : { p, at: pointer('paths', hit.t, method, 'parameters', String(i), 'schema') },
  );
  const sent: Record<string, Record<string, string | undefined>> = {
    path: Object.fromEntries(Object.entries(hit.m!.groups ?? {}).map(([k, v]) => [k, v])),
    query: Object.fromEntries(url.searchParams),
    header: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v])),
  };
  for (const { p, at } of params) {
    const raw =
      sent[p.in]?.[p.in === 'header' ? p.name.toLowerCase() : p.in === 'path' ? p.name.replace(/-/g, '_') : p.name];
    if (raw === undefined) {
      if (p.required) errors.push(`${p.in} parameter ${p.name} is missing`);
      continue;
    }
    // style simple (path, header) and form with explode=false (query): arrays are comma-separated.
    const v = paramValidator(at);
    if (!v(p.schema.type === 'array' ? raw.split(',') : raw))
      errors.push(`${p.in} parameter ${p.name}=${raw}: ${errorsText(v)}`);
  }
  for (const q of url.searchParams.keys()) {
    if (!params.some(({ p }) => p.in === 'query' && p.name === q))
      errors.push(`query parameter ${q} is not in the spec`);
  }
  const auth = r.headers.authorization ?? '';
  if (!/^Bearer \S+$/.test(auth)) errors.push('no bearer token (security bearer_auth)');
  if (op.requestBody) {
    if (!/^application\/json\b/.test(r.headers['content-type'] ?? ''))
      errors.push(`content-type ${r.headers['content-type']} is not application/json`);
    if (!r.body) {
      if (op.requestBody.required) errors.push('the required request body is missing');
    } else {
      const v = bodyValidator(pointer('paths', hit.t, method, 'requestBody', 'content', 'application/json', 'schema'));
      if (!v(JSON.parse(r.body))) errors.push(`body ${r.body}: ${errorsText(v)}`);
    }
  } else if (r.body) errors.push('the operation takes no body');
  return errors.map((e) => `${op.operationId ?? `${r.method} ${hit.t}`}: ${e}`);
}

describe('Annuaire client on the wire, against the official OpenAPI file', () => {
  let sim: AnnuaireSimulator;
  let proxy: http.Server;
  let client: AnnuaireClient;
  const recorded: Recorded[] = [];

  beforeAll(async () => {
    sim = await startAnnuaireSimulator({ host: '127.0.0.1', port: 0 });
    const target = new URL(sim.url).origin;
    proxy = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      recorded.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
      ) as Record<string, string>;
      const answer = await fetch(target + req.url, { method: req.method, headers, body: body || undefined });
      res.writeHead(
        answer.status,
        Object.fromEntries([...answer.headers].filter(([k]) => k !== 'content-encoding' && k !== 'transfer-encoding')),
      );
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    client = createAnnuaireClient({
      baseUrl: origin + BASE_PATH,
      tokenUrl: sim.tokenUrl,
      clientId: 'pa-dev',
      clientSecret: 'pa-dev-secret',
      rattachements: ['552032534', '552032534/55203253400017'],
    });
  });
  afterAll(async () => {
    await new Promise((r) => proxy.close(r));
    await sim.close();
  });

  it('every operation the client uses, with every option, sends spec-valid requests', async () => {
    const siren = makeSiren();
    const siret = `${siren}00012`;
    const day = today();
    // The calls of gov-fr.directory.register/disable and of the lookups, plus every filter the client offers.
    const [dflt] = await client.searchLines({ siren, dateObservation: day });
    await client.endLine(dflt!.idInstance, day);
    await client.createLine({ siren, matriculePlateforme: '0145', dateDebutEffet: day });
    // A routing-level line needs its routing code first; every member of the body once.
    await client.createRoutingCode({
      siret,
      identifiantRoutage: 'SERVICE-01',
      libelleCodeRoutage: 'Service achats',
      natureEtablissement: 'Privé',
      etatAdministratif: 'A',
      typeIdentifiantRoutage: '0224',
      gestionEngagementJuridique: false,
    });
    await client.createRoutingCode({
      siret,
      identifiantRoutage: 'GLN@3012345678901',
      libelleCodeRoutage: 'Entrepôt',
      natureEtablissement: 'Public',
      etatAdministratif: 'F',
    });
    await client.getRoutingCode(siret, 'SERVICE-01');
    await client.getRoutingCode(siret, 'GLN@3012345678901');
    await client.getRoutingCode(siret, 'UNKNOWN');
    await client.createLine({
      siren,
      siret,
      identifiantRoutage: 'SERVICE-01',
      matriculePlateforme: '0145',
      dateDebutEffet: day,
      dateFinEffet: '2099-12-31',
    });
    await client.createLine({ siren, suffixeAdressage: 'achats.fr', matriculePlateforme: '0145', dateDebutEffet: day });
    await client.searchLines({ siren, dateDebutRecherche: day });
    await client.searchLines({ siren, dateDebutRecherche: '2024-01-01', dateFinRecherche: day });
    await client.searchLines({ siren, modeAudit: true });
    await client.searchLines({
      siret,
      matriculePlateforme: '0145',
      suffixeAdressage: 'achats.fr',
      identifiantAdressage: siren,
    });
    await client.getLine(siren);
    await client.getLine(`${siren}_${siret}_SERVICE-01`, { dateObservation: day });
    await client.getLine(`${siren}_unknown`);
    sim.revokeTokens(); // the retried request after a 401 is recorded too
    await client.searchLines({ siren });

    expect(recorded.length).toBeGreaterThanOrEqual(19);
    expect(recorded.flatMap(conformance)).toEqual([]);
    const ops = new Set(
      recorded.map((r) => `${r.method} ${new URL(r.url, 'http://x').pathname.replace(/:[^/]*/g, ':…')}`),
    );
    expect([...ops].sort()).toEqual([
      `GET ${BASE_PATH}/code-routage/siret:…/code:…`,
      `GET ${BASE_PATH}/ligne-annuaire/code:…`,
      `PATCH ${BASE_PATH}/ligne-annuaire/id-instance:…`,
      `POST ${BASE_PATH}/code-routage`,
      `POST ${BASE_PATH}/ligne-annuaire`,
      `POST ${BASE_PATH}/ligne-annuaire/recherche`,
    ]);
  });

  it('the checker itself rejects what the spec forbids', () => {
    const base = { headers: { authorization: 'Bearer t', 'content-type': 'application/json' } };
    const bad = (r: Partial<Recorded>) =>
      conformance({ method: 'POST', url: `${BASE_PATH}/ligne-annuaire`, body: '', ...base, ...r } as Recorded);
    expect(
      bad({
        body: JSON.stringify({
          informationAdressage: { siren: '12', matriculePlateforme: '0145' },
          periodeEffet: { dateDebutEffet: today() },
        }),
      }),
    ).toEqual([expect.stringContaining('/informationAdressage/siren')]);
    expect(
      bad({
        method: 'PATCH',
        url: `${BASE_PATH}/ligne-annuaire/id-instance:abc`,
        body: '{"dateFinEffet":"2030-01-01"}',
      }),
    ).toEqual([expect.stringContaining('path parameter id-instance=abc')]);
    expect(bad({ method: 'GET', url: `${BASE_PATH}/ligne-annuaire/code:1?dateObservation=demain` })).toEqual([
      expect.stringContaining('dateObservation'),
    ]);
    expect(
      bad({
        url: `${BASE_PATH}/code-routage`,
        body: JSON.stringify({
          siret: '123',
          identifiantRoutage: 'S1',
          libelleCodeRoutage: 'x',
          natureEtablissement: 'Privée',
          etatAdministratif: 'A',
        }),
      }),
    ).toEqual([expect.stringMatching(/\/natureEtablissement must be equal to one of .*\/siret must match/)]);
    expect(bad({ method: 'GET', url: `${BASE_PATH}/code-routage/siret:123/code:S1` })).toEqual([
      expect.stringContaining('path parameter siret=123'),
    ]);
    expect(bad({ url: '/ligne-annuaire', body: '{}' })).toEqual([expect.stringContaining('outside the base path')]);
    expect(bad({ url: `${BASE_PATH}/lignes`, body: '{}' })).toEqual([expect.stringContaining('no operation')]);
  });
});
