// One signature for many companies: a campaign's rows naming the same signer become a bundle when it starts, whose
// link (links.csv) opens one session for all of them: the details and the identity document given once, each
// company's mandate then signed and submitted in its own wizard and decided on its own; the operator sees the
// bundle with each company's facts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSiren } from '../../bin/stack/sample-parties';
import { b64, jpeg, png } from '../../bin/stack/sample-images';
import { eventually, startHarness, type WorkerHarness } from '../support/harness';

let h: WorkerHarness;
beforeAll(async () => {
  h = await startHarness({ env: { CAMPAIGN_ANNUAIRE_RPS: '500', CAMPAIGN_DNS_RPS: '500' } });
}, 60_000);
afterAll(() => h?.close());

const HEADER = 'siren;name;signer_given_name;signer_surname;signer_role;contact_email;signer_id_number';
const pathOf = (link: string) => new URL(link).pathname.replace(/\/start$/, '');

describe('a bundle of one signer’s companies', () => {
  const group = [makeSiren(), makeSiren(), makeSiren()];
  const alone = makeSiren();
  let campaignId: string;
  let bundle: string; // the bundle's API path
  let companyLinks: string[];

  beforeAll(async () => {
    const file = [
      HEADER,
      `${group[0]};Holding Martin;Élodie;Martin;Présidente;elodie@groupe-martin.fr;X4RTBPFW4`,
      // The same signer, written otherwise: case and blanks aside; this row lacks her ID number.
      `${group[1]};Martin Logistique; élodie ;MARTIN;Gérante;Elodie@Groupe-Martin.fr;`,
      `${alone};Autre Société;Paul;Durand;Gérant;paul@durand.fr;X4RTBPFW4`,
      `${group[2]};Martin Services;Elodie;Martin;Présidente;elodie@groupe-martin.fr;X4RTBPFW4`,
    ].join('\n');
    const res = await fetch(`${h.baseUrl}/campaigns/v1/campaigns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'text/csv' },
      body: file,
    });
    expect(res.status).toBe(201);
    campaignId = ((await res.json()) as { id: string }).id;
    await eventually(
      async () => (await h.api('GET', `/campaigns/v1/campaigns/${campaignId}`)).body.status === 'checked',
      30_000,
    );
    expect((await h.api('POST', `/campaigns/v1/campaigns/${campaignId}/start`)).body.status).toBe('running');
  }, 60_000);

  it('gives the signer of several companies one link in links.csv, the same on each of their lines', async () => {
    const lines = await eventually(async () => {
      const res = await fetch(`${h.baseUrl}/campaigns/v1/campaigns/${campaignId}/links.csv`, {
        headers: { authorization: `Bearer ${h.apiKey}` },
      });
      const rows = (await res.text()).trim().split('\r\n');
      return rows.length === 5 && rows.slice(1).every((l) => /\/reg\/[^/,]+\/start,/.test(l)) ? rows : undefined;
    }, 30_000);
    expect(lines[0]!.split(',').at(-1)).toBe('bundle_link');
    const bundleLinks = lines.slice(1).map((l) => l.split(',').at(-1));
    expect(bundleLinks[2]).toBe(''); // Paul Durand's company: his own link only
    expect(bundleLinks[0]).toMatch(/^http.*\/reg\/bundle\/[A-Za-z0-9_-]{43}\/start$/);
    expect(new Set([bundleLinks[0], bundleLinks[1], bundleLinks[3]]).size).toBe(1);
    bundle = pathOf(bundleLinks[0]!);
    const page = await fetch(`${h.baseUrl}${bundle}/start`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
  });

  it('takes the details and the identity document once, for every company', async () => {
    const before = (await h.api('GET', `${bundle}/api/state`, undefined, null)).body;
    expect(before.companies.map((c: { siren: string }) => c.siren)).toEqual([group[0], group[1], group[2]]);
    expect(before).toMatchObject({
      signer: { given: 'Élodie', surname: 'Martin' },
      missing: ['id_number'], // Martin Logistique's row lacked it
      details_confirmed: false,
      identity: { front: false, back: false, page: false },
    });
    companyLinks = before.companies.map((c: { link: string }) => pathOf(c.link));

    const locked = await h.api('POST', `${bundle}/api/details`, { surname: 'Dupont' }, null);
    expect([locked.status, locked.body.code]).toEqual([409, 'details-locked']);
    expect(locked.body.detail).toContain(`SIREN ${group[0]}`);
    expect((await h.api('POST', `${bundle}/api/details`, { id_number: 'X4RTBPFW4' }, null)).status).toBe(204);
    for (const view of ['front', 'back'] as const) {
      const data = b64(view === 'front' ? png() : jpeg());
      expect((await h.api('POST', `${bundle}/api/identity`, { view, data }, null)).status).toBe(204);
    }
    const after = (await h.api('GET', `${bundle}/api/state`, undefined, null)).body;
    expect(after).toMatchObject({ missing: [], details_confirmed: true, identity: { front: true, back: true } });
    // Each company's own wizard has them: its mandate is the next thing to read and sign.
    for (const link of companyLinks) {
      const s = (await h.api('GET', `${link}/api/state`, undefined, null)).body;
      expect(s).toMatchObject({ details_confirmed: true, missing: [], identity: { front: true, back: true } });
    }
  });

  it('has each mandate signed and submitted in its own wizard, and decided on its own', async () => {
    for (const link of companyLinks) {
      const { mandate_number } = (await h.api('GET', `${link}/api/state`, undefined, null)).body;
      expect((await h.api('POST', `${link}/api/sign`, { mandate_number }, null)).status).toBe(204);
      expect((await h.api('POST', `${link}/api/confirm`, undefined, null)).body).toEqual({ status: 'submitted' });
    }
    const state = (await h.api('GET', `${bundle}/api/state`, undefined, null)).body;
    expect(state.companies.map((c: { submitted: boolean; signed: string }) => [c.submitted, c.signed])).toEqual([
      [true, 'typed'],
      [true, 'typed'],
      [true, 'typed'],
    ]);
    const again = await h.api('POST', `${bundle}/api/identity`, { view: 'front', data: b64(png()) }, null);
    expect([again.status, again.body.code]).toEqual([409, 'under-review']);

    // The operator: each submission in the queue, each showing the bundle and every company's facts.
    const rows = (await h.api('GET', `/campaigns/v1/campaigns/${campaignId}/rows`)).body.list as {
      siren: string;
      entry_id: string;
    }[];
    const entryOf = (siren: string) => rows.find((r) => r.siren === siren)!.entry_id;
    const approved = await h.api('POST', `/apps/gov-fr/v1/entry/${entryOf(group[0]!)}/decision`, { approved: true });
    expect(approved.status).toBe(200);
    const review = (await h.api('GET', `/apps/gov-fr/v1/review/submissions/${entryOf(group[1]!)}`)).body;
    expect(review.awaiting_decision).toBe(true);
    expect(review.bundle.campaign_id).toBe(campaignId);
    expect(
      review.bundle.companies.map((c: { siren: string; name: string; submitted_at: string; decision: string }) => [
        c.siren,
        c.name,
        typeof c.submitted_at,
        c.decision,
      ]),
    ).toEqual([
      [group[0], 'Holding Martin', 'string', 'approved'],
      [group[1], 'Martin Logistique', 'string', null],
      [group[2], 'Martin Services', 'string', null],
    ]);
    const single = (await h.api('GET', `/apps/gov-fr/v1/review/submissions/${entryOf(alone)}`)).body;
    expect(single.bundle).toBeNull(); // a company of its own signer
  });

  it('opens nothing with an unknown ref, and says so once the campaign is cancelled', async () => {
    const unknown = await h.api('GET', `/reg/bundle/${'A'.repeat(43)}/api/state`, undefined, null);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'link-unknown']);
    expect((await h.api('POST', `/campaigns/v1/campaigns/${campaignId}/cancel`)).body.status).toBe('cancelled');
    const gone = await h.api('GET', `${bundle}/api/state`, undefined, null);
    expect([gone.status, gone.body.code]).toEqual([410, 'link-cancelled']);
  });
});
