// Every authenticated route, for both kinds of caller, as its declaration says: nothing sent 401; a workspace's key
// lacking the route's scope 403 naming it; an operator on an integrator's route 403; any key, even one with every
// scope, on an operator's route 403; an operator lacking the route's role 403 naming it; the right caller passes
// the check (whatever the route then answers of the made-up ids).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness';
import { OPERATIONS } from '../../api/operations';
import { accessOf } from '../../web/http/route';
import { SCOPES } from '../../platform/store/workspaces';
import { OPERATOR_ROLES } from '../../platform/store/operators';

let h: Harness;
beforeAll(async () => {
  // Many refusals from one address in a minute: their own limit (api/rate-limit.ts) is not what is tested here.
  h = await startHarness({ env: { RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '100000', RATE_LIMIT_PER_MINUTE: '100000' } });
});
afterAll(() => h?.close());

const concrete = (path: string) =>
  path.replace(/:(\w+)/g, (_, name: string) => (name === 'view' ? 'front' : crypto.randomUUID()));

describe('authorisation matrix', () => {
  it('refuses every route to every caller but its own kind, with its scope or role', async () => {
    const lacking = Object.fromEntries(
      await Promise.all(
        SCOPES.map(
          async (s) =>
            [
              s,
              await h.newKey(
                SCOPES.filter((other) => other !== s),
                h.workspaceId,
              ),
            ] as const,
        ),
      ),
    );
    const withoutRole = Object.fromEntries(
      await Promise.all(
        OPERATOR_ROLES.map(
          async (r) => [r, await h.newOperator(OPERATOR_ROLES.filter((other) => other !== r))] as const,
        ),
      ),
    );
    const everyRole = h.operator;
    const checked = { key: 0, operator: 0 };
    for (const op of OPERATIONS) {
      const access = accessOf(op);
      if (!access) continue;
      const path = concrete(op.path);
      const what = `${op.method.toUpperCase()} ${op.path}`;
      const call = async (key: string | null) => h.api(op.method.toUpperCase(), path, undefined, key);

      expect((await call(null)).status, `${what}, nothing sent`).toBe(401);
      if ('scope' in access) {
        checked.key++;
        const wrong = await call(lacking[access.scope]!);
        expect([wrong.status, wrong.body.detail], what).toEqual([403, `this API key lacks the ${access.scope} scope`]);
        const anOperator = await call(everyRole);
        expect(anOperator.status, `${what}, an operator`).toBe(403);
        expect(anOperator.body.detail).toMatch(/for an integrator's API key/);
        expect([401, 403], `${what}, its own caller`).not.toContain((await call(h.apiKey)).status);
      } else {
        checked.operator++;
        const aKey = await call(h.apiKey);
        expect(aKey.status, `${what}, the workspace's key (every scope)`).toBe(403);
        expect(aKey.body.detail).toMatch(/only the platform's operators/);
        if (access.operator !== 'any') {
          const wrong = await call(withoutRole[access.operator]!);
          expect([wrong.status, wrong.body.detail], what).toEqual([
            403,
            `this operator lacks the ${access.operator} role`,
          ]);
        }
        expect([401, 403], `${what}, an operator`).not.toContain((await call(everyRole)).status);
      }
    }
    // Both kinds are there to be checked: a route list gone empty would pass everything above.
    expect(checked.key).toBeGreaterThan(30);
    expect(checked.operator).toBeGreaterThanOrEqual(10);
  });
});
