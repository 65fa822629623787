// Every JSON route the API serves, with the costly shapes it is sent and where in its body the shaped value goes.
import crypto from 'node:crypto';
import { MAX_JSON_VALUES, MAX_SMALL_JSON_VALUES, countJsonValues } from '../../web/http/bounded-json';
import { REGISTRATION_WORKFLOW_ID } from '../../domain/jobs/builtins';
import { MB, SHAPES, UPLOAD_SHAPES, wide, type Shape } from './shapes';

/** The API's JSON bodies (silo, transform, peppol): MAX_JSON_BODY. */
export const BODY = 128 * 1024;
export const KB16 = 16 * 1024;
export const UPLOAD = 6 * MB;

/** Where the routes point: an entry whose registration waits for its signer, and that signer's wizard ref. */
export interface Target {
  entryId: string;
  ref: string;
}

export interface Route {
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
export const workflow = (value: string) =>
  `{"name":"wide","schema":"org/party","steps":[{"id":"${crypto.randomUUID()}","name":"state","provider":"silo.state",` +
  `"config":{"state":"processing","extra":${value}}}]}`;

/** Every JSON route, pointed at `at`; some several times, the shaped value where it costs most. */
export function jsonRoutes(at: Target): Route[] {
  return [
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
      path: () => `/silo/v1/entries/${at.entryId}`,
      limit: BODY,
      shapes: SHAPES,
      wrap: (v, s) => `{"content_type":"application/merge-patch+json","data":${mergePatch(v, s)}}`,
    },
    {
      method: 'PATCH',
      op: '/silo/v1/entries/:id',
      path: () => `/silo/v1/entries/${at.entryId}`,
      limit: BODY,
      shapes: SHAPES,
      wrap: mergePatch,
      type: 'application/merge-patch+json',
    },
    {
      // Within the party's 64 KB the patched party is validated: an error per key of its ext.
      method: 'PATCH',
      op: '/silo/v1/entries/:id',
      path: () => `/silo/v1/entries/${at.entryId}`,
      limit: 60 * 1024,
      shapes: { 'wide ext, 60 KB': wide() },
      wrap: (v) => `{"ext":${v}}`,
      type: 'application/merge-patch+json',
    },
    {
      method: 'PATCH',
      op: '/silo/v1/entries/:id',
      path: () => `/silo/v1/entries/${at.entryId}`,
      limit: BODY,
      shapes: SHAPES,
      wrap: (v) => `[{"op":"add","path":"/ext","value":${v}}]`,
      type: 'application/json-patch+json',
    },
    {
      method: 'PUT',
      op: '/silo/v1/entries/:id/meta/:key',
      path: () => `/silo/v1/entries/${at.entryId}/meta/wide`,
      limit: BODY,
      shapes: SHAPES,
      wrap: (v) => `{"value":${v}}`,
    },
    // The meta keys the service reads, each its own typed operation: their values are checked, and refused, whole.
    ...['fr-invoicing-addresses', 'fr-former-matricule', 'peppol-migration-key'].map((key) => ({
      method: 'PUT' as const,
      op: `/silo/v1/entries/:id/meta/${key}`,
      path: () => `/silo/v1/entries/${at.entryId}/meta/${key}`,
      limit: BODY,
      shapes: SHAPES,
      wrap: (v: string) => `{"value":${v}}`,
    })),
    {
      method: 'PUT',
      op: '/silo/v1/entries/:id/credentials/:name',
      path: () => `/silo/v1/entries/${at.entryId}/credentials/wide`,
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
      wrap: (v) => `{"workflow_id":"${REGISTRATION_WORKFLOW_ID}","silo_entry_id":"${at.entryId}","args":${v}}`,
    },
    {
      method: 'PUT',
      op: '/transform/v1/jobs/:id',
      path: () => `/transform/v1/jobs/${crypto.randomUUID()}`,
      limit: BODY,
      shapes: { ...SHAPES, wide: wide('""'), 'wide, numbers': wide() },
      wrap: (v) => `{"workflow_id":"${REGISTRATION_WORKFLOW_ID}","silo_entry_id":"${at.entryId}","args":${v}}`,
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
      op: '/operators/v1/operators',
      path: () => '/operators/v1/operators',
      limit: KB16,
      shapes: SHAPES,
      wrap: (v) => `{"name":${v},"roles":["decide"]}`,
    },
    {
      method: 'POST',
      op: '/operators/v1/reconciliation/confirmations',
      path: () => '/operators/v1/reconciliation/confirmations',
      limit: KB16,
      shapes: SHAPES,
      wrap: (v) => `{"kind":"moved-out","ids":${v}}`,
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
      path: () => `/apps/gov-fr/v1/entry/${at.entryId}/decision`,
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
          path: () => `/apps/gov-fr/v1/entry/${at.entryId}/${what}`,
          limit: UPLOAD,
          shapes: UPLOAD_SHAPES,
          wrap,
        },
        {
          method: 'POST',
          op: `/reg/:ref/api/${what}`,
          path: () => `/reg/${at.ref}/api/${what}`,
          limit: UPLOAD,
          shapes: UPLOAD_SHAPES,
          wrap,
        },
      ];
    }),
    {
      method: 'POST',
      op: '/apps/peppol/v1/entry/:silo_entry_id/participants/:participant_id/migration-key',
      path: () => `/apps/peppol/v1/entry/${at.entryId}/participants/0225:000000000/migration-key`,
      limit: BODY,
      shapes: SHAPES,
      wrap: (v) => `{"ignored":${v}}`,
    },
    {
      method: 'POST',
      op: '/reg/:ref/api/details',
      path: () => `/reg/${at.ref}/api/details`,
      limit: KB16,
      shapes: SHAPES,
      wrap: (v) => `{"given":${v}}`,
    },
    // A bundle's routes, given the entry's ref: the body is read and bounded before the bundle is looked for (404).
    {
      method: 'POST',
      op: '/reg/bundle/:ref/api/details',
      path: () => `/reg/bundle/${at.ref}/api/details`,
      limit: KB16,
      shapes: SHAPES,
      wrap: (v) => `{"given":${v}}`,
    },
    {
      method: 'POST',
      op: '/reg/bundle/:ref/api/identity',
      path: () => `/reg/bundle/${at.ref}/api/identity`,
      limit: UPLOAD,
      shapes: UPLOAD_SHAPES,
      wrap: (v) => `{"view":"front","data":${v}}`,
    },
  ];
}

/** The values and keys a route's parser takes: 16 KB bodies fewer. */
export const maxValues = (route: Route) => (route.limit === KB16 ? MAX_SMALL_JSON_VALUES : MAX_JSON_VALUES);

/** The body of `route` with `shape` as large as the route takes: its byte limit, and its values and keys. */
export function largest(route: Route, name: string, shape: Shape): Uint8Array {
  const around = route.wrap('0', name);
  const bytes = route.limit - Buffer.byteLength(around) - 64;
  // The values around the shaped one (countJsonValues counts the placeholder 0 as one).
  let values = maxValues(route) - (countJsonValues(Buffer.from(around)) - 1);
  // A small body cannot hold that many: as many as its bytes allow.
  for (;;) {
    const text = route.wrap(shape(bytes, values), name);
    const body = Buffer.from(text);
    if (body.length <= route.limit) {
      if (countJsonValues(body) > maxValues(route)) throw new Error(`${route.op} ${name}: over the route's values`);
      return body;
    }
    values = Math.floor(values * 0.9);
  }
}

/** Each route once (some are listed with several placements). */
export const once = (routes: Route[]) =>
  routes.filter((r, i) => routes.findIndex((o) => o.method === r.method && o.op === r.op && o.type === r.type) === i);
export const routeOf = (routes: Route[], method: string, op: string) =>
  routes.find((r) => r.method === method && r.op === op)!;
export const jobBody = (at: Target, args: string) =>
  `{"workflow_id":"${REGISTRATION_WORKFLOW_ID}","silo_entry_id":"${at.entryId}","args":${args}}`;
export const routeName = (route: Route) => `${route.method} ${route.op}${route.type ? ` (${route.type})` : ''}`;
