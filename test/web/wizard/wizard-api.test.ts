// The wizard's HTTP side: the ref as the only credential, the same rules and limits as the entry API, reasons as
// codes the page translates, and the headers that keep the page embeddable only where configured.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness';
import { makeSiren, party } from '../../../bin/stack/sample-parties';
import { b64, png } from '../../../bin/stack/sample-images';
import { createWorkflow, jobWhen, setState, startJob, step } from '../../support/jobs';
import { startRegistration } from '../../support/registration';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: { WIZARD_FRAME_ANCESTORS: 'https://app.customer.example https://portal.example:8443' },
  });
});
afterAll(() => h?.close());

async function parked(overrides: Record<string, unknown> = {}) {
  const entryId = crypto.randomUUID();
  expect((await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(makeSiren(), overrides) })).status).toBe(200);
  const jobId = await startRegistration(h, entryId);
  await jobWhen(h, jobId, ['WAIT']);
  const { ref } = (await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-link`)).body;
  return { entryId, jobId, base: `/reg/${ref}/api` };
}

const call = (method: string, path: string, body?: unknown) => h.api(method, path, body, null); // no API key

describe('wizard API', () => {
  it('needs no API key: the ref opens this entry and nothing else', async () => {
    const a = await parked();
    const b = await parked({ name: 'Autre Entreprise SAS' });
    expect((await call('GET', `${a.base}/state`)).body.company.name).toBe('Boulangerie Exemple SAS');
    expect((await call('GET', `${b.base}/state`)).body.company.name).toBe('Autre Entreprise SAS');
    const state = (await call('GET', `${a.base}/state`)).body;
    expect(state).toMatchObject({
      submitted: false,
      signed: null,
      details_confirmed: false,
      identity: { front: false, back: false, page: false },
      missing: [],
    });
    expect(JSON.stringify(state)).not.toContain('X4RTBPFW4'); // the ID number is only hinted at
    const unknown = await call('GET', `/reg/${crypto.randomBytes(32).toString('base64url')}/api/state`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('link-unknown');
    expect((await call('GET', '/reg/..%2F..%2Fetc%2Fpasswd/api/state')).status).toBe(404);
  });

  it('applies the entry API limits and answers with codes', async () => {
    const { base } = await parked();
    const big = await call('POST', `${base}/identity`, {
      view: 'front',
      data: b64(Buffer.concat([png(), Buffer.alloc(4 * 1024 * 1024)])),
    });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('too-large');
    const notImage = await call('POST', `${base}/identity`, { view: 'front', data: b64(Buffer.from('%PDF-1.7')) });
    expect(notImage.status).toBe(415);
    expect(notImage.body.code).toBe('not-an-image');
    expect((await call('POST', `${base}/identity`, { view: 'side', data: b64(png()) })).status).toBe(400);
    expect((await call('POST', `${base}/details`, {})).status).toBe(204);
    const early = await call('POST', `${base}/confirm`);
    expect(early.status).toBe(422);
    expect(early.body.code).toBe('incomplete');
  });

  it('completes missing signer details but never changes recorded ones', async () => {
    const { entryId, base } = await parked({ people: [{ name: { given: 'Jean' } }] });
    expect((await call('GET', `${base}/state`)).body.missing).toEqual(['surname', 'role', 'id_number']);
    const locked = await call('POST', `${base}/details`, { given: 'Paul', surname: 'Martin', id_number: 'AB123' });
    expect(locked.status).toBe(409);
    expect(locked.body.code).toBe('details-locked');
    const incomplete = await call('POST', `${base}/details`, { surname: 'Martin' });
    expect(incomplete.body.code).toBe('signer-missing');
    expect(
      (await call('POST', `${base}/details`, { given: 'Jean', surname: 'Martin', role: 'Gérant', id_number: 'AB123' }))
        .status,
    ).toBe(204);
    expect((await h.api('GET', `/silo/v1/entries/${entryId}`)).body.data.people[0]).toMatchObject({
      name: { given: 'Jean', surname: 'Martin' },
      role: 'Gérant',
      identities: [{ code: 'AB123' }],
    });
    expect((await call('GET', `${base}/state`)).body).toMatchObject({ missing: [], details_confirmed: true });
    expect((await call('POST', `${base}/details`, { nickname: 'x' })).status).toBe(400);
  });

  it('is framed only by the configured origins, sends no Referer, and is not cached', async () => {
    const { base } = await parked();
    const page = await fetch(`${h.baseUrl}${base.replace(/\/api$/, '/start')}`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'self' https://app.customer.example https://portal.example:8443");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-src 'none'"); // the mandate is drawn by pdf.js, never in the browser's PDF viewer
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const pdf = await fetch(`${h.baseUrl}${base}/agreement?lang=en`);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-security-policy')).toContain('frame-ancestors');
    for (const asset of ['wizard.js', 'i18n.js', 'wizard.css', 'signature_pad.js', 'handwriting.ttf']) {
      expect((await fetch(`${h.baseUrl}/reg/assets/${asset}`)).status, asset).toBe(200);
    }
  });

  it('needs step 1 confirmed before a submission through the wizard', async () => {
    const { base } = await parked();
    await call('POST', `${base}/identity`, { view: 'page', data: b64(png()) });
    expect((await call('POST', `${base}/sign`, {})).status).toBe(204);
    const early = await call('POST', `${base}/confirm`);
    expect(early.status).toBe(422);
    expect(early.body.code).toBe('details-unconfirmed');
    expect((await call('POST', `${base}/details`, {})).status).toBe(204);
    expect((await call('POST', `${base}/confirm`)).body).toEqual({ status: 'submitted' });
  });

  it('gives each registration its own link: the old one stops working and the new one starts afresh', async () => {
    const wf = await createWorkflow(h, [
      step('gov-fr.agreement.sign'),
      setState('processing'),
      step('gov-fr.agreement.wait.approval'),
      setState('completed'),
    ]);
    const entryId = crypto.randomUUID();
    await h.api('PUT', `/silo/v1/entries/${entryId}`, { data: party(makeSiren()) });
    const first = await startJob(h, wf, entryId);
    await jobWhen(h, first, ['WAIT']);
    const oldRef = (await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-link`)).body.ref;
    const old = `/reg/${oldRef}/api`;
    await call('POST', `${old}/details`, {});
    await call('POST', `${old}/identity`, { view: 'page', data: b64(png()) });
    await call('POST', `${old}/sign`, {});
    await call('POST', `${old}/confirm`);
    expect((await h.api('POST', `/apps/gov-fr/v1/entry/${entryId}/decision`, { approved: true })).status).toBe(200);
    expect((await jobWhen(h, first, ['OK', 'ERR'])).status).toBe('OK');
    expect((await call('GET', `${old}/state`)).body.code).toBe('link-finished');

    const second = await startJob(h, wf, entryId);
    await jobWhen(h, second, ['WAIT']);
    const newRef = (await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-link`)).body.ref;
    expect(newRef).not.toBe(oldRef);
    expect((await call('GET', `${old}/state`)).status).toBe(404);
    const fresh = (await call('GET', `/reg/${newRef}/api/state`)).body;
    expect(fresh).toMatchObject({ decision: null, submitted: false, signed: null, details_confirmed: false });
  });

  it('lets the integrator revoke the link and issue a new one', async () => {
    const { entryId, base } = await parked();
    const entry = `/apps/gov-fr/v1/entry/${entryId}`;
    expect((await h.api('DELETE', `${entry}/approval-link`)).status).toBe(204);
    expect((await call('GET', `${base}/state`)).status).toBe(404);
    const page = await fetch(`${h.baseUrl}${base.replace(/\/api$/, '/start')}`);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('révoqué');
    expect((await h.api('DELETE', `${entry}/approval-link`)).status).toBe(404);
    const issued = await h.api('POST', `${entry}/approval-link`);
    expect(issued.status).toBe(201);
    expect(issued.body.link_url).toMatch(/\/reg\/[A-Za-z0-9_-]{43}\/start$/);
    expect((await call('GET', `/reg/${issued.body.ref}/api/state`)).status).toBe(200);
    expect((await h.api('GET', `/silo/v1/entries/${entryId}/meta/approval-link`)).body.ref).toBe(issued.body.ref);
  });

  it('has one address per page: a trailing slash redirects, broken encoding is an unknown link', async () => {
    const { base } = await parked();
    const start = base.replace(/\/api$/, '/start');
    const slash = await fetch(`${h.baseUrl}${start}/?lang=en`, { redirect: 'manual' });
    expect(slash.status).toBe(301);
    expect(slash.headers.get('location')).toBe(`${start}?lang=en`);
    const broken = await fetch(`${h.baseUrl}/reg/%E0%A4%A/start`);
    expect(broken.status).toBe(404);
    expect(broken.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('refuses a frame-ancestors setting that is not a list of origins', async () => {
    const { loadConfig } = await import('../../../platform/config');
    expect(() => loadConfig({ WIZARD_FRAME_ANCESTORS: "https://ok.example 'unsafe-inline'" })).toThrow(/origin/);
  });
});
