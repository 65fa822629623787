// The operators' queue at volume: one queue across workspaces with a total, keyset pages, filters on the checks
// recorded when each submission was made (the Annuaire asked then, not per card), a search, and two orders.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asWorkspace, eventually, startHarness, type Harness } from '../support/harness';
import { submittedEntry, type Submission } from '../support/review-submission';
import { makeSiren } from '../../bin/stack/sample-parties';
import { b64, png } from '../../bin/stack/sample-images';
import { createWorkspace } from '../../platform/store/workspaces';

const QUEUE = '/apps/gov-fr/v1/review/submissions';
let h: Harness;
let other: Harness;
const subs: Record<string, Submission> = {};

/** A submission for a company the Annuaire knows as `known` (or not at all). */
async function submit(
  as: Harness,
  name: string,
  known?: { raisonSociale: string; etatAdministratif: 'A' | 'C' },
): Promise<Submission> {
  const siren = makeSiren();
  if (known) h.sims.annuaire.seedCompany({ siren, ...known });
  return submittedEntry(as, { name, siren });
}

const queue = async (query = '') => {
  const r = await h.api('GET', `${QUEUE}${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { total: number; list: any[]; next_cursor?: string; workspaces: any[] };
};
const ids = (page: { list: any[] }) => page.list.map((s) => s.entry_id);

beforeAll(async () => {
  h = await startHarness();
  const ws = await createWorkspace(h.db, 'Cabinet Durand');
  other = asWorkspace(h, await h.newKey(['entries:rw', 'jobs:rw'], ws.id), ws.id);
  subs.matching = await submit(h, 'Fromagerie Alpha SARL', {
    raisonSociale: 'FROMAGERIE ALPHA',
    etatAdministratif: 'A',
  });
  subs.renamed = await submit(h, 'Boulangerie Bêta SAS', {
    raisonSociale: 'BOULANGERIE GAMMA',
    etatAdministratif: 'A',
  });
  subs.ceased = await submit(other, 'Menuiserie Delta', { raisonSociale: 'MENUISERIE DELTA', etatAdministratif: 'C' });
  subs.unknown = await submit(other, 'Quincaillerie Epsilon');
  // Another platform's line in force: a take-over, whatever the mandate says.
  const siren = makeSiren();
  h.sims.annuaire.seedCompany({ siren, raisonSociale: 'TRAITEUR ZETA', etatAdministratif: 'A' });
  h.sims.annuaire.seedLine({ siren, matriculePlateforme: '0042', dateDebutEffet: '2025-01-01' });
  subs.takeover = await submittedEntry(h, { name: 'Traiteur Zêta', siren });
  // Rejected, then submitted again.
  subs.again = await submit(h, 'Cordonnerie Êta', { raisonSociale: 'CORDONNERIE ETA', etatAdministratif: 'A' });
  const e = `/apps/gov-fr/v1/entry/${subs.again.entryId}`;
  expect((await h.api('POST', `${e}/decision`, { approved: false, reason: 'illegible ID' })).status).toBe(200);
  await eventually(
    async () => (await h.api('GET', `/silo/v1/entries/${subs.again!.entryId}`)).body.state === 'processing',
    15_000,
    'the rejection recorded',
  );
  expect((await h.api('POST', `${e}/identity`, { view: 'page', data: b64(png(130, 90)) })).status).toBe(204);
  expect((await h.api('POST', `${e}/sign`, {})).status).toBe(204);
  expect((await h.api('POST', `${e}/confirm`)).status).toBe(200);
});
afterAll(() => h?.close());

describe('the checks recorded with each submission', () => {
  it('say what it is for, its round, its evidence, the Annuaire then, and the approval deadline', async () => {
    const all = await queue();
    expect(all.total).toBe(6);
    const by = Object.fromEntries(all.list.map((s) => [s.entry_id, s]));
    expect(by[subs.matching!.entryId].checks).toMatchObject({
      purpose: 'registration',
      round: 1,
      evidence: 'in-app',
      name_matches: true,
      company_active: true,
      directory: { outcome: 'found', record: { name: 'FROMAGERIE ALPHA', status: 'active' }, other_platforms: [] },
    });
    expect(by[subs.renamed!.entryId].checks).toMatchObject({ name_matches: false, company_active: true });
    expect(by[subs.ceased!.entryId].checks).toMatchObject({ company_active: false });
    expect(by[subs.unknown!.entryId].checks).toMatchObject({
      directory: { outcome: 'not-found' },
      name_matches: null,
      company_active: false,
    });
    expect(by[subs.takeover!.entryId].checks).toMatchObject({
      purpose: 'takeover',
      directory: { other_platforms: ['0042'] },
    });
    expect(by[subs.again!.entryId].checks).toMatchObject({ purpose: 'registration', round: 2 });
    // The harness's APPROVAL_DEADLINE is 1h, counted from the wait's start (before the submission).
    const c = by[subs.matching!.entryId];
    const hours = (Date.parse(c.checks.decide_by) - Date.parse(c.submitted_at)) / 3_600_000;
    expect(hours).toBeGreaterThan(0.9);
    expect(hours).toBeLessThanOrEqual(1);
  });

  it('come from the Annuaire once, when the submission was made: listing the queue asks it nothing', async () => {
    const failed = () => h.sims.annuaire.faultsSeen()['503'] ?? 0;
    const before = failed();
    h.sims.annuaire.setFaults({ status: 503 }); // every request it would get fails, and is counted
    try {
      const page = await queue();
      expect(page.list.find((s) => s.entry_id === subs.renamed!.entryId).checks.name_matches).toBe(false);
    } finally {
      h.sims.annuaire.setFaults(undefined);
    }
    expect(failed()).toBe(before);
  });
});

describe('filters, search, order, pages', () => {
  it('filters by workspace, kind, evidence, age, name mismatch and state; the workspaces listed with their counts', async () => {
    const page = await queue(`?workspace_id=${other.workspaceId}`);
    expect(ids(page).sort()).toEqual([subs.ceased!.entryId, subs.unknown!.entryId].sort());
    expect(page.total).toBe(2);
    expect(page.workspaces).toEqual(
      expect.arrayContaining([
        { id: other.workspaceId, name: 'Cabinet Durand', pending: 2 },
        { id: h.workspaceId, name: 'test', pending: 4 },
      ]),
    );
    expect(ids(await queue('?kind=resubmission'))).toEqual([subs.again!.entryId]);
    expect(ids(await queue('?kind=takeover'))).toEqual([subs.takeover!.entryId]);
    expect((await queue('?kind=first')).total).toBe(5);
    expect((await queue('?evidence=in-app')).total).toBe(6);
    expect((await queue('?evidence=scan')).total).toBe(0);
    expect(ids(await queue('?name_mismatch=true'))).toEqual([subs.renamed!.entryId]);
    expect(ids(await queue('?not_active=true')).sort()).toEqual([subs.ceased!.entryId, subs.unknown!.entryId].sort());
    expect(
      (await queue(`?submitted_before=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}`)).total,
    ).toBe(0);
  });

  it('searches by SIREN, its first digits, or words of the name (accents as typed)', async () => {
    expect(ids(await queue(`?q=${subs.ceased!.siren}`))).toEqual([subs.ceased!.entryId]);
    expect(ids(await queue(`?q=${subs.ceased!.siren.slice(0, 5)}`))).toContain(subs.ceased!.entryId);
    expect(ids(await queue(`?q=${encodeURIComponent('menuiserie')}`))).toEqual([subs.ceased!.entryId]);
    // Each word, in any order, whatever stands between them in the name.
    expect(ids(await queue(`?q=${encodeURIComponent('delta  menuiserie')}`))).toEqual([subs.ceased!.entryId]);
    expect(ids(await queue(`?q=${encodeURIComponent('menuiserie-delta')}`))).toEqual([subs.ceased!.entryId]);
    expect((await queue(`?q=${encodeURIComponent('menuiserie omega')}`)).total).toBe(0);
    // LIKE's wildcards are plain text: unescaped, each would match every name.
    for (const wildcard of ['%', '_']) expect((await queue(`?q=${encodeURIComponent(wildcard)}`)).total).toBe(0);
  });

  it('pages by keyset in either order: every submission once, the total on each page', async () => {
    for (const order of ['oldest', 'urgent']) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await queue(`?order=${order}&limit=4${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.total).toBe(6);
        expect(page.list.length).toBeLessThanOrEqual(4);
        seen.push(...ids(page));
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen.length).toBe(6);
      expect(new Set(seen).size).toBe(6);
    }
    // Oldest first: in the order submitted (the resubmission last).
    expect(ids(await queue('?order=oldest')).at(-1)).toBe(subs.again!.entryId);
    // A cursor carries its order: read in the other, it would skip or repeat cards.
    const { next_cursor } = await queue('?order=urgent&limit=2');
    const crossed = await h.api('GET', `${QUEUE}?order=oldest&cursor=${next_cursor}`);
    expect(crossed.status).toBe(400);
    expect(JSON.stringify(crossed.body)).toContain('a cursor of a page in order=urgent');
  });

  it('refuses what it cannot do, naming the parameter', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=500', 'limit'],
      ['?cursor=abc', 'cursor'],
      ['?kind=other', 'kind'],
      ['?order=newest', 'order'],
      ['?name_mismatch=yes', 'name_mismatch'],
      ['?workspace_id=x', 'workspace_id'],
      ['?submitted_before=yesterday', 'submitted_before'],
      [`?q=${'x'.repeat(101)}`, 'q'],
      ['?status=pending', 'status'],
    ]) {
      const r = await h.api('GET', `${QUEUE}${query}`);
      expect(r.status, query).toBe(400);
      expect(JSON.stringify(r.body), query).toContain(field);
    }
  });

  it('leaves a decided submission out, and the totals follow', async () => {
    const e = `/apps/gov-fr/v1/entry/${subs.matching!.entryId}`;
    expect((await h.api('POST', `${e}/decision`, { approved: true })).status).toBe(200);
    const page = await queue();
    expect(page.total).toBe(5);
    expect(ids(page)).not.toContain(subs.matching!.entryId);
  });
});
