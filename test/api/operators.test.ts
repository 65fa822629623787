// The platform's operators as their compliance team uses them: one queue across the integrators' workspaces, their
// credentials managed by an operator-admin (shown once, expiring, revocable at once), the review page's session
// cookie, and the access log of what each decided and saw, as JSON and as CSV for the audit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asWorkspace, startHarness, type Harness } from '../support/harness';
import { createWorkspace } from '../../platform/store/workspaces';
import { neutralised } from '../../domain/operators/access-log-csv';
import { submittedEntry, type Submission } from '../support/review-submission';
import { entryApi } from '../support/registration';

let h: Harness;
let other: Harness; // a second integrator's workspace
let ours: Submission;
let theirs: Submission;
const QUEUE = '/apps/gov-fr/v1/review/submissions';
const SESSION = '/apps/gov-fr/v1/review/session';

beforeAll(async () => {
  h = await startHarness();
  const ws = await createWorkspace(h.db, 'Cabinet Comptable Durand');
  other = asWorkspace(h, await h.newKey(['entries:rw', 'jobs:rw'], ws.id), ws.id);
  ours = await submittedEntry(h, { name: 'Boulangerie Nôtre SARL' });
  theirs = await submittedEntry(other, { name: 'Quincaillerie Leur SAS' });
});
afterAll(() => h?.close());

describe('one queue across the workspaces', () => {
  it("lists every workspace's submissions, each with the workspace that brought it", async () => {
    const list = (await h.api('GET', QUEUE, undefined, h.secondOperator)).body.list;
    const byEntry = Object.fromEntries(list.map((s: any) => [s.entry_id, s.workspace]));
    expect(byEntry[ours.entryId]).toEqual({ id: h.workspaceId, name: 'test' });
    expect(byEntry[theirs.entryId]).toEqual({ id: other.workspaceId, name: 'Cabinet Comptable Durand' });
    // Any operator opens and decides on either; the integrator's own key reaches neither.
    const review = await h.api('GET', `${QUEUE}/${theirs.entryId}`, undefined, h.secondOperator);
    expect(review.body.party.name).toBe('Quincaillerie Leur SAS');
    expect((await h.api('GET', `${QUEUE}/${theirs.entryId}`, undefined, other.apiKey)).status).toBe(403);
  });
});

describe('credentials', () => {
  it('are created by an operator-admin, shown once, listed without their secret, and revoked at once', async () => {
    const created = await h.api('POST', '/operators/v1/operators', { name: 'Camille Martin', roles: ['decide'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { credential, id: credentialId, operator } = created.body;
    expect(credential).toMatch(/^opc_[A-Za-z0-9_-]{43}$/);
    const days = (Date.parse(created.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
    expect((await h.api('GET', QUEUE, undefined, credential)).status).toBe(200);

    const list = (await h.api('GET', '/operators/v1/operators')).body.list;
    expect(JSON.stringify(list)).not.toContain(credential);
    expect(list.find((o: any) => o.id === operator.id)).toMatchObject({
      name: 'Camille Martin',
      roles: ['decide'],
      credentials: [{ id: credentialId, prefix: credential.slice(0, 8), revoked_at: null }],
    });

    expect((await h.api('DELETE', `/operators/v1/credentials/${credentialId}`)).status).toBe(204);
    const refused = await h.api('GET', QUEUE, undefined, credential);
    expect([refused.status, refused.body.detail]).toEqual([401, 'unknown, revoked or expired operator credential']);
  });

  it('are refused once expired, and a new one can be issued', async () => {
    const { body } = await h.api('POST', '/operators/v1/operators', { name: 'Dominique Petit', roles: ['decide'] });
    await h.db.query("UPDATE operator_credentials SET expires_at = now() - interval '1 second' WHERE id = $1", [
      body.id,
    ]);
    expect((await h.api('GET', QUEUE, undefined, body.credential)).status).toBe(401);
    const renewed = await h.api('POST', `/operators/v1/operators/${body.operator.id}/credentials`);
    expect(renewed.status).toBe(201);
    expect((await h.api('GET', QUEUE, undefined, renewed.body.credential)).status).toBe(200);
  });

  it('cannot revoke the credential in use, and say who may manage operators', async () => {
    const self = (await h.api('GET', '/operators/v1/operators')).body.list.find(
      (o: any) => o.name === 'Test operator A',
    );
    const own = await h.api('DELETE', `/operators/v1/credentials/${self.credentials[0].id}`);
    expect([own.status, own.body.code]).toEqual([409, 'own-key']);
    const notAdmin = await h.api('POST', '/operators/v1/operators', { name: 'X', roles: ['admin'] }, h.secondOperator);
    expect([notAdmin.status, notAdmin.body.detail]).toEqual([403, 'this operator lacks the admin role']);
    const bad = await h.api('POST', '/operators/v1/operators', { name: ' ', roles: ['approvals'] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.name', 'body.roles.0']);
  });
});

describe("the review page's session", () => {
  async function signIn(credential = h.secondOperator) {
    const res = await fetch(`${h.baseUrl}${SESSION}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credential}` },
    });
    expect(res.status).toBe(201);
    const cookie = res.headers.get('set-cookie')!;
    return { res, cookie, token: /^pa_operator_session=([^;]+)/.exec(cookie)![1]! };
  }
  const withCookie = (token: string, init: RequestInit = {}, path = QUEUE) =>
    fetch(`${h.baseUrl}${path}`, { ...init, headers: { cookie: `pa_operator_session=${token}`, ...init.headers } });

  it('is a cookie the page never reads, good for 30 minutes without a request', async () => {
    const { res, cookie, token } = await signIn();
    expect(cookie.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Path=/', 'SameSite=Strict', 'Secure']);
    expect(await res.json()).toMatchObject({
      operator: { name: 'Test operator B', roles: ['decide'] },
      idle_timeout_s: 1800,
    });
    expect((await withCookie(token)).status).toBe(200);
    await h.db.query("UPDATE operator_sessions SET last_seen_at = now() - interval '29 minutes'");
    expect((await withCookie(token)).status).toBe(200); // a request resets the idle time
    await h.db.query("UPDATE operator_sessions SET last_seen_at = now() - interval '31 minutes'");
    const ended = await withCookie(token);
    expect(ended.status).toBe(401);
    expect(((await ended.json()) as { detail: string }).detail).toMatch(/review session has ended/);
  });

  it('ends at sign-out, and with its credential', async () => {
    const first = await signIn();
    const out = await withCookie(first.token, { method: 'DELETE' }, SESSION);
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^pa_operator_session=;/);
    expect((await withCookie(first.token)).status).toBe(401);

    const made = (await h.api('POST', '/operators/v1/operators', { name: 'Eva Roux', roles: ['decide'] })).body;
    const second = await signIn(made.credential);
    expect((await h.api('DELETE', `/operators/v1/credentials/${made.id}`)).status).toBe(204);
    expect((await withCookie(second.token)).status).toBe(401);
  });

  it("refuses a decision carried by the cookie from another site's page", async () => {
    const { token } = await signIn();
    const sub = await submittedEntry(h, { name: 'Cible Lointaine SAS' });
    const forged = await withCookie(
      token,
      {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
        body: JSON.stringify({ approved: true }),
      },
      `${entryApi(sub.entryId)}/decision`,
    );
    expect(forged.status).toBe(403);
    expect((await h.api('GET', `${QUEUE}/${sub.entryId}`)).body.awaiting_decision).toBe(true);
    // From the page itself (its own origin), the same request decides.
    const own = await withCookie(
      token,
      {
        method: 'POST',
        headers: { origin: h.baseUrl, 'content-type': 'application/json' },
        body: JSON.stringify({ approved: true }),
      },
      `${entryApi(sub.entryId)}/decision`,
    );
    expect(own.status).toBe(200);
  });
});

describe('the access log', () => {
  it('lists who decided and saw what, when, by operator and by entry, and exports it as CSV', async () => {
    // An operator whose name a spreadsheet would read as a formula.
    const made = (await h.api('POST', '/operators/v1/operators', { name: '=HYPERLINK("x")', roles: ['decide'] })).body;
    const e = entryApi(theirs.entryId);
    const detail = await h.api('GET', `${QUEUE}/${theirs.entryId}`, undefined, made.credential);
    expect(detail.body.signer.id_number).toBeTruthy(); // the signer's identity number: seen, so logged
    expect((await h.api('GET', `${e}/identity/page`, undefined, made.credential)).status).toBe(200);
    expect((await h.api('GET', `${QUEUE}/${theirs.entryId}/mandate`, undefined, made.credential)).status).toBe(200);
    const reason = '-1 point: the signature is not the one on the ID';
    expect((await h.api('POST', `${e}/decision`, { approved: false, reason }, made.credential)).status).toBe(200);

    const mine = await h.api('GET', `/operators/v1/access-log?operator_id=${made.operator.id}`);
    expect(mine.status).toBe(200);
    expect(mine.body.list.map((l: any) => [l.action, l.entry_id])).toEqual([
      ['submission-viewed', theirs.entryId],
      ['identity-image-viewed', theirs.entryId],
      ['mandate-viewed', theirs.entryId],
      ['decision', theirs.entryId],
    ]);
    expect(mine.body.list[3].detail).toMatchObject({ decision: 'rejected', reason });
    const onEntry = await h.api('GET', `/operators/v1/access-log?silo_entry_id=${theirs.entryId}&limit=2`);
    expect(onEntry.body.list).toHaveLength(2);
    const rest = await h.api(
      'GET',
      `/operators/v1/access-log?silo_entry_id=${theirs.entryId}&cursor=${onEntry.body.next_cursor}`,
    );
    expect(rest.body.list.map((l: any) => l.action)).toContain('decision');
    // Who created that operator, and their credential: the admin, in the log too.
    const byAdmin = await h.api('GET', '/operators/v1/access-log?limit=1000');
    expect(
      byAdmin.body.list
        .filter((l: any) => l.detail.operator_id === made.operator.id)
        .map((l: any) => [l.action, l.operator_name]),
    ).toEqual([
      ['operator-created', 'Test operator A'],
      ['credential-created', 'Test operator A'],
    ]);

    const csv = await fetch(`${h.baseUrl}/operators/v1/access-log.csv?operator_id=${made.operator.id}`, {
      headers: { authorization: `Bearer ${h.operator}` },
    });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="operator-access-log.csv"');
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,operator_id,operator_name,action,entry_id,job_id,detail');
    expect(lines).toHaveLength(5);
    // The name is neutralised (an apostrophe first), quoted as CSV quotes a cell holding quotes.
    expect(lines[1]).toContain(`,"'=HYPERLINK(""x"")",submission-viewed,${theirs.entryId},`);
    expect(lines[4]).toContain(',decision,');
  });

  it('neutralises every cell a spreadsheet would read as a formula, and nothing else', () => {
    expect(['=1+1', '+33 1', '-2', '@SUM(A1)', '\tx', '\rx', 'Martin', '1=1', ''].map(neutralised)).toEqual([
      "'=1+1",
      "'+33 1",
      "'-2",
      "'@SUM(A1)",
      "'\tx",
      "'\rx",
      'Martin',
      '1=1',
      '',
    ]);
  });

  it('refuses a malformed cursor or filter with a reason', async () => {
    const r = await h.api('GET', '/operators/v1/access-log?cursor=nope&operator_id=x&from=yesterday');
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'query.cursor',
      'query.from',
      'query.operator_id',
    ]);
  });
});
