// Issue 40, point 3: JSON bodies bounded in width. Every JSON route is sent the largest body it takes (its byte limit,
// its values and keys) in each costly shape — a wide object, a long array of numbers, a string of escapes; for the
// uploads a 4 MB file, megabytes of escapes, long keys, long numbers — and answers it without a 5xx. What a route
// stores (a meta value, a workflow, a job's args) is sent at its own limit and kept; the reported attack (80,000 keys)
// and one value or byte over each limit are refused, 4xx. How long each of these holds the API's event loop is
// measured by `npm run bench:json-bodies`, against a bare JSON server in the same run (a time is not a test here).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_VALUES, MAX_SMALL_JSON_VALUES, countJsonValues } from '../../web/http/bounded-json';
import { META_VALUE_LIMITS } from '../../api/schemas';
import { OPERATIONS } from '../../api/operations';
import { PROBLEM_CODES } from '../../web/http/problem-codes';
import { bodyCases, type BodyCase } from '../../bench/json-bodies/cases';
import {
  UPLOAD,
  jobBody,
  jsonRoutes,
  maxValues,
  once,
  routeName,
  routeOf as routeIn,
  workflow,
  type Route,
  type Target,
} from '../../bench/json-bodies/routes';
import { send as sendTo } from '../../bench/json-bodies/send';
import { zeros } from '../../bench/json-bodies/shapes';
import { startHarness, type Harness } from '../support/harness';
import { jobWhen } from '../support/jobs';
import { newParty, startRegistration } from '../support/registration';

const MAX = MAX_JSON_VALUES.toLocaleString('en');
const tooMany = (max: number) =>
  `the JSON body holds more than ${max.toLocaleString('en')} values and keys (each object, array, string, number, boolean, null and object key counts one): at most ${max.toLocaleString('en')}`;
const MAX_META_VALUE_VALUES = META_VALUE_LIMITS.values;
const MAX_META_VALUE_BYTES = META_VALUE_LIMITS.bytes;

let h: Harness;
const at: Target = { entryId: '', ref: '' };
const ROUTES = jsonRoutes(at);
const CASES = bodyCases(ROUTES, at);
const routeOf = (method: string, op: string) => routeIn(ROUTES, method, op);
const send = (route: Route, body: Uint8Array, keyed?: boolean) => sendTo(h, route, body, keyed);

beforeAll(async () => {
  h = await startHarness();
  at.entryId = await newParty(h);
  await jobWhen(h, await startRegistration(h, at.entryId), ['WAIT']);
  at.ref = (await h.api('GET', `/silo/v1/entries/${at.entryId}/meta/approval-link`)).body.ref;
});
afterAll(() => h?.close());

/** Sends each case of `group`; the answers that are not as they should be. */
async function wrongAnswers(group: BodyCase['group']): Promise<string[]> {
  const wrong: string[] = [];
  for (const c of CASES.filter((x) => x.group === group)) {
    const body = c.body();
    const answer = await send(c.route, body);
    const right = c.answers ? c.answers.includes(answer.status) : answer.status < 500;
    if (!right) wrong.push(`${c.what}, ${(body.length / 1024).toFixed(0)} KB: ${answer.status} ${answer.detail}`);
  }
  return wrong;
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

  it('are answered in every costly shape, none with a 5xx', async () => {
    expect(await wrongAnswers('largest')).toEqual([]);
  });
});

describe('what a route stores', () => {
  it('is kept at its limits in every costly shape', async () => {
    expect(await wrongAnswers('stored')).toEqual([]);
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
    const manyArgs = await send(jobs, Buffer.from(jobBody(at, args(MAX_META_VALUE_VALUES / 2))));
    expect([manyArgs.status, manyArgs.detail]).toEqual([
      400,
      `invalid body: body.args: ${limits('args')}: ${overValues}`,
    ]);
    const longArgs = await send(jobs, Buffer.from(jobBody(at, args(7, 'x'.repeat(10_000)))));
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
  it('refuses the reported attack (80,000 keys, 869 KB) and 60,000 values within the bytes, 413 on every route', async () => {
    expect(await wrongAnswers('refused')).toEqual([]);
  });

  /** The route's body holding `total` values, as an array of zeros where its wrap puts the shaped value. */
  const holding = (route: Route, total: number) => {
    const around = countJsonValues(Buffer.from(route.wrap('0', 'numbers'))) - 1;
    return Buffer.from(route.wrap(zeros(total - around - 1), 'numbers'));
  };

  it(`is refused on every JSON route: ${MAX} values and keys taken, one more 413 (400 where the upload parser reads first)`, async () => {
    for (const route of once(ROUTES)) {
      const what = routeName(route);
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
