// The operators' read routes (the `decide` role alone): a submission as the review page shows it, with the
// Annuaire's own record for the SIREN, and the signed mandate; no API key reaches them, never cached.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness';
import { makeSiren, party } from '../../bin/stack/sample-parties';
import { b64, png } from '../../bin/stack/sample-images';
import { submittedEntry, type Submission } from '../support/review-submission';

let h: Harness;
let operator: string;
let sub: Submission;
const review = (id: string) => `/apps/gov-fr/v1/review/submissions/${id}`;

beforeAll(async () => {
  h = await startHarness();
  operator = await h.newOperator(['decide']); // deciding needs nothing more
  sub = await submittedEntry(h, { name: 'Fromagerie Revue SARL' });
  h.sims.annuaire.seedCompany({
    siren: sub.siren,
    raisonSociale: 'FROMAGERIE REVUE',
    etatAdministratif: 'A',
    typeEntite: 'Privée assujettie',
  });
});
afterAll(() => h?.close());

describe('GET review/submissions/{id} (an operator)', () => {
  it('gives the party, the signer, the identity views and the Annuaire record, never cached', async () => {
    const r = await h.api('GET', review(sub.entryId), undefined, operator);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.body).toMatchObject({
      entry_id: sub.entryId,
      job_id: sub.jobId,
      mandate_signed: true,
      awaiting_decision: true,
      signed_via: 'typed',
      decision: null,
      decisions: [],
      // The VAT id with its country, as on an invoice (GOBL stores FR apart from the code).
      party: {
        name: 'Fromagerie Revue SARL',
        siren: sub.siren,
        vat: expect.stringMatching(new RegExp(`^FR\\d{2}${sub.siren}$`)),
        address: '12 rue de la Paix 75002 Paris',
      },
      signer: { given: 'Élodie', surname: "N'Guessan-Dupré", role: 'Présidente' },
      directory: {
        outcome: 'found',
        record: { siren: sub.siren, name: 'FROMAGERIE REVUE', status: 'active', entity_type: 'Privée assujettie' },
      },
    });
    expect(r.body.identity.map((v: { view: string; mime: string }) => [v.view, v.mime])).toEqual([
      ['page', 'image/png'],
    ]);
    expect(Date.parse(r.body.identity[0].uploaded_at)).toBeLessThanOrEqual(Date.parse(r.body.submitted_at));
    expect(r.body.mandate_number).toMatch(new RegExp(`^${sub.siren}_`));
  });

  it('keeps the earlier decisions of the registration, with their reasons, and says when each identity image was uploaded', async () => {
    const again = await submittedEntry(h, { name: 'Crèmerie Refusée SAS' });
    const e = `/apps/gov-fr/v1/entry/${again.entryId}`;
    const uploadedFirst = (await h.api('GET', review(again.entryId), undefined, operator)).body.identity[0].uploaded_at;
    const rejected = await h.api(
      'POST',
      `${e}/decision`,
      { approved: false, reason: 'Passport page unreadable' },
      operator,
    );
    expect(rejected.status).toBe(200);
    await expect
      .poll(async () => (await h.api('GET', `/silo/v1/entries/${again.entryId}`)).body.state, { timeout: 15_000 })
      .toBe('processing');
    const rejection = {
      decision: 'rejected',
      reason: 'Passport page unreadable',
      decided_at: rejected.body.decided_at,
    };

    // A new submission: the passport page replaced, the mandate signed again.
    expect((await h.api('POST', `${e}/identity`, { view: 'page', data: b64(png(160, 100)) })).status).toBe(204);
    expect((await h.api('POST', `${e}/sign`, {})).status).toBe(204);
    expect((await h.api('POST', `${e}/confirm`)).status).toBe(200);
    let r = await h.api('GET', review(again.entryId), undefined, operator);
    expect(r.body).toMatchObject({ awaiting_decision: true, decision: rejection, decisions: [rejection] });
    const uploaded = r.body.identity[0].uploaded_at;
    expect(Date.parse(uploaded)).toBeGreaterThan(Date.parse(rejection.decided_at)); // replaced after the rejection
    expect(Date.parse(uploadedFirst)).toBeLessThan(Date.parse(rejection.decided_at));

    expect((await h.api('POST', `${e}/decision`, { approved: true }, operator)).status).toBe(200);
    r = await h.api('GET', review(again.entryId), undefined, operator);
    expect(r.body.awaiting_decision).toBe(false);
    expect(r.body.decisions.map((d: { decision: string; reason?: string }) => [d.decision, d.reason])).toEqual([
      ['approved', undefined],
      ['rejected', 'Passport page unreadable'],
    ]);
    expect(r.body.decision).toEqual(r.body.decisions[0]);
  });

  it('gives the signed mandate as a download that no browser renders in place', async () => {
    const res = await fetch(`${h.baseUrl}${review(sub.entryId)}/mandate`, {
      headers: { authorization: `Bearer ${operator}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="mandat-\d{9}_/);
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it("refuses every API key, even the workspace's own with every scope (403), and keeps no-store on the queue", async () => {
    for (const path of [review(sub.entryId), `${review(sub.entryId)}/mandate`, '/apps/gov-fr/v1/review/submissions']) {
      const r = await h.api('GET', path, undefined, h.apiKey);
      expect(r.status, path).toBe(403);
      expect(r.body.detail).toContain("only the platform's operators");
    }
    const queue = await h.api('GET', '/apps/gov-fr/v1/review/submissions', undefined, operator);
    expect(queue.status).toBe(200);
    expect(queue.headers.get('cache-control')).toBe('no-store');
    expect(queue.body.list.map((s: { entry_id: string }) => s.entry_id)).toContain(sub.entryId);
  });

  it('answers an unknown id 404 and a malformed one 400', async () => {
    const unknown = crypto.randomUUID();
    for (const suffix of ['', '/mandate']) {
      const none = await h.api('GET', review(unknown) + suffix, undefined, operator);
      expect(none.status).toBe(404);
      expect(none.body.detail).toBe(`entry ${unknown} not found`);
    }
    expect((await h.api('GET', review('not-a-uuid'), undefined, operator)).status).toBe(400);
  });

  it('says 404 with a reason for an entry without a mandate, or without a signed one', async () => {
    const bare = crypto.randomUUID();
    await h.api('PUT', `/silo/v1/entries/${bare}`, { data: party(makeSiren()) });
    const r = await h.api('GET', review(bare), undefined, operator);
    expect(r.status).toBe(404);
    expect(r.body.detail).toMatch(/mandate/);
    const issued = await submittedEntry(h, { name: 'Pas Encore Signé SAS', stopAt: 'issued' });
    expect((await h.api('GET', review(issued.entryId), undefined, operator)).body).toMatchObject({
      mandate_signed: false,
      awaiting_decision: false,
    });
    const m = await h.api('GET', `${review(issued.entryId)}/mandate`, undefined, operator);
    expect(m.status).toBe(404);
    expect(m.body.detail).toBe(`a signed mandate for entry ${issued.entryId} not found`);
    // Signed but not confirmed yet: shown, but nothing to decide.
    const signed = await submittedEntry(h, { name: 'Signé Pas Envoyé SAS', stopAt: 'signed' });
    expect((await h.api('GET', review(signed.entryId), undefined, operator)).body).toMatchObject({
      mandate_signed: true,
      awaiting_decision: false,
    });
  });
});

describe('the Annuaire record beside the declared company', () => {
  it('says the directory has no such company, in the response, not as an error', async () => {
    const other = await submittedEntry(h, { name: 'Inconnue Annuaire SAS' }); // no company seeded for its SIREN
    const r = await h.api('GET', review(other.entryId), undefined, operator);
    expect(r.status).toBe(200);
    expect(r.body.directory).toEqual({
      outcome: 'not-found',
      reason: `the PPF Annuaire has no company with SIREN ${other.siren}`,
    });
  });

  it('says the directory is unavailable when it fails, and still shows the rest', async () => {
    h.sims.annuaire.setFaults({ status: 503, only: 'GET /siren/code-insee:*' });
    try {
      const r = await h.api('GET', review(sub.entryId), undefined, operator);
      expect(r.status).toBe(200);
      expect(r.body.directory.outcome).toBe('unavailable');
      expect(r.body.directory.reason).toMatch(/PPF Annuaire is unavailable/);
      expect(r.body.party.name).toBe('Fromagerie Revue SARL');
    } finally {
      h.sims.annuaire.setFaults(undefined);
    }
  });

  it('shows a ceased company as ceased', async () => {
    const ceased = await submittedEntry(h, { name: 'Ancienne Maison SA' });
    h.sims.annuaire.seedCompany({ siren: ceased.siren, raisonSociale: 'ANCIENNE MAISON', etatAdministratif: 'C' });
    const r = await h.api('GET', review(ceased.entryId), undefined, operator);
    expect(r.body.directory).toMatchObject({ outcome: 'found', record: { name: 'ANCIENNE MAISON', status: 'ceased' } });
  });
});
