// The contract: /openapi.json generated from the zod schemas, naming every route the app serves, with the
// versioning rules of seed §9; the interactive reference is served by us. (Every response the API tests receive is
// checked against this document by the test harness: test/support/contract.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { createApp } from '../../api/app';
import { OPERATIONS, UNVERSIONED } from '../../api/operations';
import { EXAMPLE_PARTY } from '../../api/reference';
import { frenchParty } from '../../domain/party';
import { log, startHarness, type Harness } from '../support/harness';
import { testSealKey } from '../support/seal-key';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

interface Layer {
  rawPath?: string;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Every (method, path) the Express app routes, read from its router stacks (Express 5 keeps mount paths). */
function routesOf(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const l of stack) {
      if (l.route) for (const m of Object.keys(l.route.methods)) out.push(`${m} ${prefix}${l.route.path}`);
      else if (l.handle.stack) walk(l.handle.stack, prefix + (l.rawPath && l.rawPath !== '/' ? l.rawPath : ''));
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return [...new Set(out)];
}

// Static files of pages (scripts, styles, fonts) and the campaign file’s example are not operations.
const ASSETS =
  /^get \/(docs|docs\/init\.js|docs\/campaign-example\.csv|apps\/gov-fr\/review\/review\.js|reg\/assets\/.*)$/;

describe('OpenAPI document', () => {
  it('is served as OpenAPI 3.1 with every operation, its scope and its schemas', async () => {
    const res = await h.api('GET', '/openapi.json', undefined, null);
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.values(doc.paths).flatMap((p) => Object.keys(p as object))).toHaveLength(OPERATIONS.length);
    const put = doc.paths['/silo/v1/entries/{id}'].put;
    expect(put['x-required-scope']).toBe('entries:rw');
    expect(put.requestBody.content['application/json'].schema.required).toEqual(['data']);
    expect(put.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Entry' });
    // The decision is an operator's: their credential or the review page's session, never an API key.
    const decision = doc.paths['/apps/gov-fr/v1/entry/{silo_entry_id}/decision'].post;
    expect([decision['x-required-scope'], decision['x-required-role'], decision.security]).toEqual([
      undefined,
      'decide',
      [{ operatorCredential: [] }, { operatorSession: [] }],
    ]);
    expect(doc.components.securitySchemes.operatorSession).toMatchObject({ type: 'apiKey', in: 'cookie' });
    expect(doc.components.schemas.Problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail']),
    );
    // Generated from the validating schema itself: its limits are the ones enforced.
    const identity =
      doc.paths['/apps/gov-fr/v1/entry/{silo_entry_id}/identity'].post.requestBody.content['application/json'].schema;
    expect(identity.properties.view.enum).toEqual(['front', 'back', 'page']);
  });

  it('documents every operation for a newcomer: a description, examples of its bodies, its errors with their codes', async () => {
    const doc = (await h.api('GET', '/openapi.json', undefined, null)).body;
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const name = `${method} ${path}`;
        expect(op.summary, name).toBeTruthy();
        expect(op.description?.length ?? 0, name).toBeGreaterThan(20);
        for (const [type, content] of Object.entries(op.requestBody?.content ?? {}) as [string, any][]) {
          expect(Object.keys(content.examples ?? {}).length, `${name} ${type} examples`).toBeGreaterThan(0);
        }
        const problems = (Object.entries(op.responses) as [string, any][]).filter(
          ([status, r]) => status !== 'default' && Number(status) >= 400 && r.content?.['application/problem+json'],
        );
        for (const [status, r] of problems) {
          const examples = Object.values(r.content['application/problem+json'].examples) as any[];
          expect(examples.length, `${name} ${status}`).toBeGreaterThan(0);
          for (const e of examples) expect(e.value).toMatchObject({ status: Number(status), code: expect.any(String) });
        }
        if (op.security?.length)
          expect(
            problems.map(([s]) => s),
            name,
          ).toEqual(expect.arrayContaining(['401', '403']));
      }
    }
    // The party is a documented schema, with the signer's fields; states and statuses are enums that say what each means.
    const schemas = doc.components.schemas;
    expect(schemas.Party.properties.people.description).toMatch(/people\[0\] signs the mandate/);
    expect(doc.paths['/silo/v1/entries'].post.requestBody.content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/Party',
    });
    expect(schemas.PartyState.enum).toEqual([
      'processing',
      'submitted',
      'completed',
      'registered',
      'error',
      'void',
      'cancelled',
      'moved-out',
      'ceased',
    ]);
    for (const s of schemas.PartyState.enum) expect(schemas.PartyState.description).toContain(`${s} — `);
    for (const s of schemas.JobStatus.enum) expect(schemas.JobStatus.description).toContain(`${s} — `);
    expect(schemas.Problem.properties.code.enum).toContain('past-directory');
  });

  it('gives examples the API accepts: each body validates, and the example party is created', async () => {
    for (const op of OPERATIONS) {
      const named = { ...op.examples, ...op.bodyExamples?.['application/json'] };
      for (const [name, value] of Object.entries(named)) {
        const r = op.body!.safeParse(value);
        expect(r.success, `${op.method} ${op.path} example "${name}": ${JSON.stringify(r.error?.issues)}`).toBe(true);
      }
    }
    expect(frenchParty.safeParse(EXAMPLE_PARTY).success).toBe(true);
    const created = await h.api('POST', '/silo/v1/entries', { data: EXAMPLE_PARTY });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  });

  it('names every route the app serves, and nothing it does not', () => {
    const app = createApp({ db: h.db, log, temporal: h.client, config: h.config, box: h.box, sealKey: testSealKey() });
    const served = routesOf(app)
      .filter((r) => !ASSETS.test(r))
      .sort();
    const documented = OPERATIONS.map((o) => `${o.method} ${o.path}`).sort();
    expect(served).toEqual(documented);
  });

  it('follows the versioning rules: every path carries its service and version', () => {
    for (const op of OPERATIONS) {
      if (UNVERSIONED.test(op.path)) continue;
      expect(op.path, `${op.method} ${op.path}`).toMatch(/^\/(apps\/[a-z-]+|[a-z]+)\/v\d+\//);
    }
    // Operations added to a service since its v1 (health, approval links, admin keys) changed no version.
    const versions = new Set(
      OPERATIONS.filter((o) => !UNVERSIONED.test(o.path)).map((o) => /\/(v\d+)\//.exec(o.path)![1]),
    );
    expect([...versions]).toEqual(['v1']);
  });

  it('has an interactive reference page, served by us', async () => {
    const page = await fetch(`${h.baseUrl}/docs/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js'])
      expect((await fetch(`${h.baseUrl}/docs/${asset}`)).status, asset).toBe(200);
  });
});
