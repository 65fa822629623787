// The cases sent to the JSON routes: each route's largest body in each of its shapes, what a route stores at its
// limits, and the reported attack one value over them (issue 40, point 3). Shared by the test that each is answered
// as it should be (test/api/bounded-json.test.ts) and the benchmark of how long each holds the API's event loop
// (`npm run bench:json-bodies`).
import { STORED_JSON_LIMITS } from '../../web/http/bounded-json';
import { BODY, jobBody, largest, once, routeName, routeOf, workflow, type Route, type Target } from './routes';
import { SHAPES, wide, zeros } from './shapes';

/**
 * One body sent to one route, made when sent (an upload's is megabytes). `largest`: a route's largest body in one of
 * its costly shapes, answered without a 5xx; `stored`: free-form JSON a route keeps, at STORED_JSON_LIMITS, answered
 * with one of `answers`; `refused`: one value over the limits, answered 413.
 */
export interface BodyCase {
  group: 'largest' | 'stored' | 'refused';
  what: string;
  route: Route;
  body: () => Uint8Array;
  answers?: number[];
}

/** What a route stores of free-form JSON, each within STORED_JSON_LIMITS. */
function stored(routes: Route[], at: Target) {
  return [
    {
      what: 'a meta value',
      route: routeOf(routes, 'PUT', '/silo/v1/entries/:id/meta/:key'),
      wrap: (v: string) => `{"value":${v}}`,
      shapes: SHAPES,
      kept: [200],
      around: 0,
    },
    {
      what: 'a workflow definition (its steps and rescue)',
      route: routeOf(routes, 'PUT', '/transform/v1/workflows/:id'),
      wrap: workflow,
      shapes: SHAPES,
      kept: [200, 201],
      around: 20, // the values around the shaped one (a step, its config): a few, 20 allowed for
    },
    {
      // The entry's registration running: the job is refused once its row is tried (409), its args parsed by the store.
      what: 'args',
      route: routeOf(routes, 'POST', '/transform/v1/jobs'),
      wrap: (v: string) => jobBody(at, v),
      shapes: { wide: wide('""') },
      kept: [409],
      around: 0,
    },
  ];
}

/** Every case, in the order the routes are listed. */
export function bodyCases(routes: Route[], at: Target): BodyCase[] {
  const largestOnes = routes.flatMap((route) =>
    Object.entries(route.shapes).map(([name, shape]): BodyCase => ({
      group: 'largest',
      what: `${routeName(route)}, ${name}`,
      route,
      body: () => largest(route, name, shape),
    })),
  );
  const storedOnes = stored(routes, at).flatMap((s) =>
    Object.entries(s.shapes).map(([name, shape]): BodyCase => {
      const body = () =>
        Buffer.from(s.wrap(shape(STORED_JSON_LIMITS.bytes - 512, STORED_JSON_LIMITS.values - s.around)));
      return {
        group: 'stored',
        what: `${routeName(s.route)}, ${s.what} kept, ${name}`,
        route: s.route,
        body,
        answers: s.kept,
      };
    }),
  );
  const attacks = {
    'the reported 80,000 keys': wide()(869 * 1024, 160_001),
    '60,000 numbers': zeros(60_000),
  };
  const refusedOnes = once(routes)
    .filter((r) => r.limit === BODY)
    .flatMap((route) =>
      Object.entries(attacks).map(([name, attack]): BodyCase => ({
        group: 'refused',
        what: `${routeName(route)}, ${name}`,
        route,
        body: () => Buffer.from(route.wrap(attack, 'wide')),
        answers: [413],
      })),
    );
  return [...largestOnes, ...storedOnes, ...refusedOnes];
}
