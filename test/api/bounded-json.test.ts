// Issue 40, point 3: JSON bodies bounded in width. Every JSON route is sent the largest body it takes (its byte limit,
// its values and keys) in each costly shape — a wide object, a long array of numbers, a string of escapes; for the
// uploads a 4 MB file, megabytes of escapes, long keys, long numbers — and the event loop of this process, which
// hosts the app, must not be held more than 50 ms by it (monitorEventLoopDelay at a 10 ms resolution: an idle loop
// reads about 10 ms). What a route stores (a meta value, a workflow, a job's args) is sent at its own limit; the
// reported attack (80,000 keys) and one value or byte over each limit are refused, 4xx. The machine is shared: a case
// is measured up to five times and judged on its best run (a block of ours shows in every run; another process
// taking the CPU does not).
import crypto from 'node:crypto';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_JSON_VALUES,
  MAX_SMALL_JSON_VALUES,
  STORED_JSON_LIMITS,
  countJsonValues,
} from '../../web/http/bounded-json';
import { META_VALUE_LIMITS } from '../../api/schemas';
import { OPERATIONS } from '../../api/operations';
import { PROBLEM_CODES } from '../../web/http/problem-codes';
import { REGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { startHarness, type Harness } from '../support/harness';
import { jobWhen } from '../support/jobs';
import { newParty, startRegistration } from '../support/registration';

const BUDGET_MS = 50;
const MAX = MAX_JSON_VALUES.toLocaleString('en');
const tooMany = (max: number) =>
  `the JSON body holds more than ${max.toLocaleString('en')} values and keys (each object, array, string, number, boolean, null and object key counts one): at most ${max.toLocaleString('en')}`;
const MAX_META_VALUE_VALUES = META_VALUE_LIMITS.values;
const MAX_META_VALUE_BYTES = META_VALUE_LIMITS.bytes;
const MB = 1024 * 1024;
/** The API's JSON bodies (silo, transform, peppol): MAX_JSON_BODY. */
const BODY = 128 * 1024;
const KB16 = 16 * 1024;
const UPLOAD = 6 * MB;

let h: Harness;
let entryId: string;
let ref: string;
const figures: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  entryId = await newParty(h);
  await jobWhen(h, await startRegistration(h, entryId), ['WAIT']);
  ref = (await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-link`)).body.ref;
});
afterAll(async () => {
  console.log(`event-loop delay max (ms), best of up to 5 runs [all runs]:\n${figures.join('\n')}`);
  await h?.close();
});

/** A JSON value of a costly shape, as text, within `bytes` and holding `values` values and keys (itself included). */
type Shape = (bytes: number, values: number) => string;

/** An object of as many members as `values` allows (each a key and a value), its keys as long as `bytes` allows. */
const wide =
  (member = '1'): Shape =>
  (bytes, values) => {
    const n = Math.floor((values - 1) / 2);
    const keyLen = Math.max(6, Math.floor((bytes - 2) / n) - (member.length + 4));
    const keys = Array.from({ length: n }, (_, i) => `"${String(i).padStart(keyLen, 'k')}":${member}`);
    return `{${keys.join(',')}}`;
  };
/** An array of values − 1 numbers, each as many digits as `bytes` allows. */
const numbers: Shape = (bytes, values) => {
  const n = values - 1;
  const digits = Math.max(1, Math.floor((bytes - 2) / n) - 3);
  return `[${Array.from({ length: n }, (_, i) => `${(i % 9) + 1}.${'7'.repeat(digits)}`).join(',')}]`;
};
/** One string of `\u00e9` escapes filling `bytes`. */
const escapes: Shape = (bytes) => `"${'\\u00e9'.repeat(Math.floor((bytes - 2) / 6))}"`;
/** One string of plain base64 characters: what an upload is. */
const base64: Shape = (bytes) => `"${'QUJD'.repeat(Math.floor((bytes - 2) / 4))}"`;

const SHAPES: Record<string, Shape> = { wide: wide(), numbers, escapes };
/** A 4 MB file (the upload limit) that starts as a PNG: decoded, and checked in the inspection pool. */
const FILE = (() => {
  const bytes = Buffer.alloc(4 * MB);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  return `"${bytes.toString('base64')}"`;
})();
/** Upload bodies hold at most 64 separators: few values, as long as 6 MB allows. */
const UPLOAD_SHAPES: Record<string, Shape> = {
  'a 4 MB file': () => FILE,
  base64,
  escapes,
  'wide (long keys)': (bytes) => wide()(bytes, 30),
  'numbers (long)': (bytes) => numbers(bytes, 30),
};

interface Route {
  method: string;
  /** The operation's path as OPERATIONS names it. */
  op: string;
  path: () => string;
  limit: number;
  shapes: Record<string, Shape>;
  /** The body around the shaped value: placed where the route reads free-form JSON, or where it costs most. */
  wrap: (value: string, shape: string) => string;
  type?: string;
}

const party = (value: string, shape: string) =>
  shape === 'wide' ? value : shape === 'numbers' ? `{"name":"A","people":${value}}` : `{"name":${value}}`;
const mergePatch = (value: string, shape: string) =>
  shape === 'wide' ? `{"ext":${value}}` : shape === 'numbers' ? `{"people":${value}}` : `{"name":${value}}`;
const workflow = (value: string) =>
  `{"name":"wide","schema":"org/party","steps":[{"id":"${crypto.randomUUID()}","name":"state","provider":"silo.state",` +
  `"config":{"state":"processing","extra":${value}}}]}`;

const ROUTES: Route[] = [
  {
    method: 'POST',
    op: '/silo/v1/entries',
    path: () => '/silo/v1/entries',
    limit: BODY,
    shapes: SHAPES,
    wrap: (v, s) => `{"data":${party(v, s)}}`,
  },
  {
    method: 'PUT',
    op: '/silo/v1/entries/:id',
    path: () => `/silo/v1/entries/${crypto.randomUUID()}`,
    limit: BODY,
    shapes: SHAPES,
    wrap: (v, s) => `{"data":${party(v, s)}}`,
  },
  {
    method: 'PATCH',
    op: '/silo/v1/entries/:id',
    path: () => `/silo/v1/entries/${entryId}`,
    limit: BODY,
    shapes: SHAPES,
    wrap: (v, s) => `{"content_type":"application/merge-patch+json","data":${mergePatch(v, s)}}`,
  },
  {
    method: 'PATCH',
    op: '/silo/v1/entries/:id',
    path: () => `/silo/v1/entries/${entryId}`,
    limit: BODY,
    shapes: SHAPES,
    wrap: mergePatch,
    type: 'application/merge-patch+json',
  },
  {
    // Within the party's 64 KB the patched party is validated: an error per key of its ext.
    method: 'PATCH',
    op: '/silo/v1/entries/:id',
    path: () => `/silo/v1/entries/${entryId}`,
    limit: 60 * 1024,
    shapes: { 'wide ext, 60 KB': wide() },
    wrap: (v) => `{"ext":${v}}`,
    type: 'application/merge-patch+json',
  },
  {
    method: 'PATCH',
    op: '/silo/v1/entries/:id',
    path: () => `/silo/v1/entries/${entryId}`,
    limit: BODY,
    shapes: SHAPES,
    wrap: (v) => `[{"op":"add","path":"/ext","value":${v}}]`,
    type: 'application/json-patch+json',
  },
  {
    method: 'PUT',
    op: '/silo/v1/entries/:id/meta/:key',
    path: () => `/silo/v1/entries/${entryId}/meta/wide`,
    limit: BODY,
    shapes: SHAPES,
    wrap: (v) => `{"value":${v}}`,
  },
  {
    method: 'PUT',
    op: '/silo/v1/entries/:id/credentials/:name',
    path: () => `/silo/v1/entries/${entryId}/credentials/wide`,
    limit: BODY,
    shapes: SHAPES,
    wrap: (v) => `{"kind":"api-key","key":${v}}`,
  },
  {
    method: 'PUT',
    op: '/transform/v1/workflows/:id',
    path: () => `/transform/v1/workflows/${crypto.randomUUID()}`,
    limit: BODY,
    shapes: SHAPES,
    wrap: workflow,
  },
  {
    method: 'POST',
    op: '/transform/v1/jobs',
    path: () => '/transform/v1/jobs',
    limit: BODY,
    // args are strings: a wide object of them is what the route takes (the entry's job running, it is refused after);
    // of numbers, a validation error per key.
    shapes: { ...SHAPES, wide: wide('""'), 'wide, numbers': wide() },
    wrap: (v) => `{"workflow_id":"${REGISTRATION_WORKFLOW_ID}","silo_entry_id":"${entryId}","args":${v}}`,
  },
  {
    method: 'PUT',
    op: '/transform/v1/jobs/:id',
    path: () => `/transform/v1/jobs/${crypto.randomUUID()}`,
    limit: BODY,
    shapes: { ...SHAPES, wide: wide('""'), 'wide, numbers': wide() },
    wrap: (v) => `{"workflow_id":"${REGISTRATION_WORKFLOW_ID}","silo_entry_id":"${entryId}","args":${v}}`,
  },
  {
    method: 'POST',
    op: '/transform/v1/jobs/:id/cancel',
    path: () => `/transform/v1/jobs/${crypto.randomUUID()}/cancel`,
    limit: BODY,
    shapes: SHAPES,
    wrap: (v) => `{"reason":${v}}`,
  },
  {
    method: 'POST',
    op: '/admin/v1/keys',
    path: () => '/admin/v1/keys',
    limit: KB16,
    shapes: SHAPES,
    wrap: (v) => `{"name":${v},"scopes":["entries:rw"]}`,
  },
  {
    method: 'POST',
    op: '/events/v1/subscriptions',
    path: () => '/events/v1/subscriptions',
    limit: KB16,
    shapes: SHAPES,
    wrap: (v) => `{"url":"https://example.com/hook","kinds":${v}}`,
  },
  {
    method: 'POST',
    op: '/apps/gov-fr/v1/entry/:silo_entry_id/decision',
    path: () => `/apps/gov-fr/v1/entry/${entryId}/decision`,
    limit: KB16,
    shapes: SHAPES,
    wrap: (v) => `{"approved":false,"reason":${v}}`,
  },
  ...(['identity', 'sign', 'agreement'] as const).flatMap((what): Route[] => {
    const wrap = (v: string) =>
      what === 'identity' ? `{"view":"front","data":${v}}` : what === 'sign' ? `{"signature":${v}}` : `{"data":${v}}`;
    return [
      {
        method: 'POST',
        op: `/apps/gov-fr/v1/entry/:silo_entry_id/${what}`,
        path: () => `/apps/gov-fr/v1/entry/${entryId}/${what}`,
        limit: UPLOAD,
        shapes: UPLOAD_SHAPES,
        wrap,
      },
      {
        method: 'POST',
        op: `/reg/:ref/api/${what}`,
        path: () => `/reg/${ref}/api/${what}`,
        limit: UPLOAD,
        shapes: UPLOAD_SHAPES,
        wrap,
      },
    ];
  }),
  {
    method: 'POST',
    op: '/apps/peppol/v1/entry/:silo_entry_id/participants/:participant_id/migration-key',
    path: () => `/apps/peppol/v1/entry/${entryId}/participants/0225:000000000/migration-key`,
    limit: BODY,
    shapes: SHAPES,
    wrap: (v) => `{"ignored":${v}}`,
  },
  {
    method: 'POST',
    op: '/reg/:ref/api/details',
    path: () => `/reg/${ref}/api/details`,
    limit: KB16,
    shapes: SHAPES,
    wrap: (v) => `{"given":${v}}`,
  },
];

/** The values and keys a route's parser takes: 16 KB bodies fewer. */
const maxValues = (route: Route) => (route.limit === KB16 ? MAX_SMALL_JSON_VALUES : MAX_JSON_VALUES);

/** The body of `route` with `shape` as large as the route takes: its byte limit, and its values and keys. */
function largest(route: Route, name: string, shape: Shape): Uint8Array {
  const around = route.wrap('0', name);
  const bytes = route.limit - Buffer.byteLength(around) - 64;
  // The values around the shaped one (countJsonValues counts the placeholder 0 as one).
  let values = maxValues(route) - (countJsonValues(Buffer.from(around)) - 1);
  // A small body cannot hold that many: as many as its bytes allow.
  for (;;) {
    const text = route.wrap(shape(bytes, values), name);
    const body = Buffer.from(text);
    if (body.length <= route.limit) {
      expect(countJsonValues(body), `${route.op} ${name}`).toBeLessThanOrEqual(maxValues(route));
      return body;
    }
    values = Math.floor(values * 0.9);
  }
}

interface Answer {
  status: number;
  type: string;
  detail: string;
}

/**
 * Sends `body` with node:http, in this process: written to the socket as it is (fetch would copy it through web
 * streams on this event loop), the answer kept as bytes.
 */
function send(route: Route, body: Uint8Array, keyed = route.method === 'POST'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${h.baseUrl}${route.path()}`,
      {
        method: route.method,
        headers: {
          authorization: `Bearer ${h.apiKey}`,
          'content-type': route.type ?? 'application/json',
          'content-length': body.length,
          ...(keyed && { 'idempotency-key': crypto.randomUUID() }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8', 0, 2000); // never JSON.parse a large answer here
          resolve({
            status: res.statusCode!,
            type: res.headers['content-type'] ?? '',
            detail: /"detail":"([^"]*)/.exec(text)?.[1] ?? '',
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The event loop's longest delay while `route` answers `body`: best of up to five runs. */
async function delayOf(route: Route, body: Uint8Array) {
  const runs: number[] = [];
  let answer: Answer | undefined;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  for (let run = 0; run < 5; run++) {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    // The histogram records from its second tick on (the first only starts the clock): the request goes after it.
    await sleep(25);
    answer = await send(route, body);
    await sleep(25); // ticks after the answer, to see a block just before it
    delay.disable();
    runs.push(delay.max / 1e6);
    if (delay.max / 1e6 <= BUDGET_MS) break;
  }
  return { best: Math.min(...runs), runs, answer: answer! };
}

describe('the largest JSON bodies', () => {
  it('covers every JSON route', () => {
    const covered = new Set(ROUTES.map((r) => `${r.method} ${r.op}`));
    const withBodies = OPERATIONS.filter((o) => o.body).map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect(withBodies.filter((o) => !covered.has(o))).toEqual([]);
    // The reference states the limit with every 413.
    expect(PROBLEM_CODES['too-large'].meaning).toContain(
      `at most ${MAX} in a body, ${MAX_SMALL_JSON_VALUES} in a 16 KB one`,
    );
  });

  it(`hold the event loop ${BUDGET_MS} ms at most, in every costly shape`, async () => {
    const over: string[] = [];
    for (const route of ROUTES) {
      for (const [name, shape] of Object.entries(route.shapes)) {
        const body = largest(route, name, shape);
        const { best, runs, answer } = await delayOf(route, body);
        const what = `${route.method} ${route.op}${route.type ? ` (${route.type})` : ''}, ${name}, ${(body.length / 1024).toFixed(0)} KB`;
        figures.push(
          `  ${best.toFixed(1).padStart(6)}  [${runs.map((r) => r.toFixed(1)).join(', ')}]  ${what} → ${answer.status}`,
        );
        expect(answer.status, `${what}: ${answer.detail}`).toBeLessThan(500);
        if (best > BUDGET_MS) over.push(`${what}: ${best.toFixed(1)} ms`);
      }
    }
    expect(over).toEqual([]);
  });
});

/** Each route once (some are listed with several placements). */
const once = (routes: Route[]) =>
  routes.filter((r, i) => routes.findIndex((o) => o.method === r.method && o.op === r.op && o.type === r.type) === i);
const zeros = (n: number) => `[${new Array(n).fill('0').join(',')}]`;
const routeOf = (method: string, op: string) => ROUTES.find((r) => r.method === method && r.op === op)!;
const jobBody = (args: string) =>
  `{"workflow_id":"${REGISTRATION_WORKFLOW_ID}","silo_entry_id":"${entryId}","args":${args}}`;

/** What a route stores of free-form JSON, each within STORED_JSON_LIMITS. */
const STORED = [
  {
    what: 'a meta value',
    route: () => routeOf('PUT', '/silo/v1/entries/:id/meta/:key'),
    wrap: (v: string) => `{"value":${v}}`,
    shapes: SHAPES,
    kept: [200],
  },
  {
    what: 'a workflow definition (its steps and rescue)',
    route: () => routeOf('PUT', '/transform/v1/workflows/:id'),
    wrap: workflow,
    shapes: SHAPES,
    kept: [200, 201],
  },
  {
    // The entry's registration running: the job is refused once its row is tried (409), its args parsed by the store.
    what: 'args',
    route: () => routeOf('POST', '/transform/v1/jobs'),
    wrap: jobBody,
    shapes: { wide: wide('""') },
    kept: [409],
  },
];

describe('what a route stores', () => {
  it(`is kept up to ${STORED_JSON_LIMITS.values.toLocaleString('en')} values and ${STORED_JSON_LIMITS.bytes.toLocaleString('en')} bytes, within the budget`, async () => {
    for (const stored of STORED) {
      const route = stored.route();
      // The values around the shaped one in what is stored (a workflow's step, its config): a few, 20 allowed for.
      const around = stored.what === 'a workflow definition (its steps and rescue)' ? 20 : 0;
      for (const [name, shape] of Object.entries(stored.shapes)) {
        const value = shape(STORED_JSON_LIMITS.bytes - 512, STORED_JSON_LIMITS.values - around);
        const body = Buffer.from(stored.wrap(value));
        const { best, runs, answer } = await delayOf(route, body);
        figures.push(
          `  ${best.toFixed(1).padStart(6)}  [${runs.map((r) => r.toFixed(1)).join(', ')}]  ${route.method} ${route.op}, ${stored.what} kept, ${name}, ${(body.length / 1024).toFixed(0)} KB → ${answer.status}`,
        );
        expect(stored.kept, `${stored.what}, ${name}: ${answer.detail}`).toContain(answer.status);
        expect(best, `${stored.what}, ${name}`).toBeLessThanOrEqual(BUDGET_MS);
      }
    }
  });

  it('is refused one value or one byte over, 400 naming the limits', async () => {
    const fmt = (n: number) => n.toLocaleString('en');
    const limits = (what: string) =>
      `${what} holds at most ${fmt(MAX_META_VALUE_VALUES)} JSON values and keys and ${fmt(MAX_META_VALUE_BYTES)} bytes of JSON`;
    const overValues = `this one has more than ${fmt(MAX_META_VALUE_VALUES)} values and keys`;
    const meta = routeOf('PUT', '/silo/v1/entries/:id/meta/:key');
    const put = (value: string) => send(meta, Buffer.from(`{"value":${value}}`));
    expect((await put(zeros(MAX_META_VALUE_VALUES - 1))).status).toBe(200);
    const values = await put(zeros(MAX_META_VALUE_VALUES));
    expect([values.status, values.detail]).toEqual([
      400,
      `invalid body: body.value: ${limits('a meta value')}: ${overValues}`,
    ]);
    expect(values.type).toMatch(/^application\/problem\+json/);
    const string = (bytes: number) => `"${'x'.repeat(bytes - 2)}"`;
    expect((await put(string(MAX_META_VALUE_BYTES))).status).toBe(200);
    const bytes = await put(string(MAX_META_VALUE_BYTES + 1));
    expect([bytes.status, bytes.detail]).toEqual([
      400,
      `invalid body: body.value: ${limits('a meta value')}: this one is ${fmt(MAX_META_VALUE_BYTES + 1)} bytes`,
    ]);

    const jobs = routeOf('POST', '/transform/v1/jobs');
    const args = (n: number, each = '') => `{${Array.from({ length: n }, (_, i) => `"a${i}":"${each}"`).join(',')}}`;
    const manyArgs = await send(jobs, Buffer.from(jobBody(args(MAX_META_VALUE_VALUES / 2))));
    expect([manyArgs.status, manyArgs.detail]).toEqual([
      400,
      `invalid body: body.args: ${limits('args')}: ${overValues}`,
    ]);
    const longArgs = await send(jobs, Buffer.from(jobBody(args(7, 'x'.repeat(10_000)))));
    expect(longArgs.status).toBe(400);
    expect(longArgs.detail).toMatch(
      new RegExp(`^invalid body: body.args: ${limits('args')}: this one is 70,\\d{3} bytes$`),
    );

    const workflows = routeOf('PUT', '/transform/v1/workflows/:id');
    const definition = await send(workflows, Buffer.from(workflow(zeros(MAX_META_VALUE_VALUES))));
    expect([definition.status, definition.detail]).toEqual([
      400,
      `invalid body: body.steps: ${limits('a workflow definition (its steps and rescue)')}: ${overValues}`,
    ]);
  });
});

describe('one value over the limits', () => {
  it('refuses the reported attack (80,000 keys, 869 KB) and 60,000 values within the bytes, at the cost of a scan', async () => {
    const attacks = {
      'the reported 80,000 keys': wide()(869 * 1024, 160_001),
      '60,000 numbers': zeros(60_000),
    };
    for (const route of once(ROUTES).filter((r) => r.limit === BODY)) {
      for (const [name, attack] of Object.entries(attacks)) {
        const body = Buffer.from(route.wrap(attack, 'wide'));
        const { best, runs, answer } = await delayOf(route, body);
        const what = `${route.method} ${route.op}${route.type ? ` (${route.type})` : ''}, ${name}, ${(body.length / 1024).toFixed(0)} KB`;
        figures.push(
          `  ${best.toFixed(1).padStart(6)}  [${runs.map((r) => r.toFixed(1)).join(', ')}]  ${what} → ${answer.status}`,
        );
        expect(answer.status, what).toBe(413);
        expect(best, what).toBeLessThanOrEqual(BUDGET_MS);
      }
    }
  });

  /** The route's body holding `total` values, as an array of zeros where its wrap puts the shaped value. */
  const holding = (route: Route, total: number) => {
    const around = countJsonValues(Buffer.from(route.wrap('0', 'numbers'))) - 1;
    return Buffer.from(route.wrap(zeros(total - around - 1), 'numbers'));
  };

  it(`is refused on every JSON route: ${MAX} values and keys taken, one more 413 (400 where the upload parser reads first)`, async () => {
    for (const route of once(ROUTES)) {
      const what = `${route.method} ${route.op}${route.type ? ` (${route.type})` : ''}`;
      const max = maxValues(route);
      const body = holding(route, max + 1);
      expect(countJsonValues(body)).toBe(max + 1);
      const refused = await send(route, body);
      expect(refused.type, what).toMatch(/^application\/problem\+json/);
      // The entry API's POSTs carry an Idempotency-Key here: their body is read by the upload parser first.
      const upload = route.limit === UPLOAD || route.op.startsWith('/apps/gov-fr/v1/');
      if (upload) {
        expect(refused.status, what).toBe(400);
        expect(refused.detail, what).toMatch(/more than 64 separators/);
      } else {
        expect([refused.status, refused.detail], what).toEqual([413, tooMany(max)]);
        const taken = await send(route, holding(route, max));
        expect(taken.detail, what).not.toMatch(/the JSON body holds more than/);
      }
    }
    // The decision without an Idempotency-Key: its own parser (16 KB), bounded as the others.
    const decision = routeOf('POST', '/apps/gov-fr/v1/entry/:silo_entry_id/decision');
    const unkeyed = await send(decision, holding(decision, MAX_SMALL_JSON_VALUES + 1), false);
    expect([unkeyed.status, unkeyed.detail]).toEqual([413, tooMany(MAX_SMALL_JSON_VALUES)]);
  });
});
