// Checks recorded with each submission and the decision policy's automatic approvals (issue 47): the signer among the
// company's directors in the public register (the API Recherche d'entreprises simulator, over HTTP), the evidence of
// the signature in detail, and an approval without a person only for a digital signature whose certificate, from a CA
// the platform trusts, names the signer, a listed director. The rest go to the operators, their checks shown and
// filterable; an automatic decision names its rule, version and inputs, beside human ones in the decision audit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startHarness, type Harness } from '../support/harness';
import { testCa } from '../../bin/stack/signing-ca';
import { checkAgain } from '../../domain/mandate/recheck';
import { director, SIGNER, submittedFor } from '../support/checked-submission';
import { generateSelfSigned } from '../../platform/crypto/dev-certificates';

const ca = testCa();
const POLICY = {
  version: 7,
  second_approval: ['takeover', 'scan', 'name-mismatch', 'not-active'],
  overturn_window: '6s',
  auto_approve: [
    { rule: 'director-certificate', when: ['certificate-names-director', 'name-matches', 'company-active'] },
  ],
};
let h: Harness;
beforeAll(async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'policy-')), 'policy.json');
  fs.writeFileSync(file, JSON.stringify(POLICY));
  h = await startHarness({ env: { DECISION_POLICY_FILE: file, SIGNATURE_TRUST_ANCHORS_FILE: ca.file } });
});
afterAll(() => h?.close());

const entry = (id: string) => `/apps/gov-fr/v1/entry/${id}`;
const review = (id: string) => `/apps/gov-fr/v1/review/submissions/${id}`;

const submitted = (directors: Parameters<typeof submittedFor>[1], sign: Parameters<typeof submittedFor>[2]) =>
  submittedFor(h, directors, sign);

const queueCard = async (entryId: string, filter = '') =>
  (await h.api('GET', `/apps/gov-fr/v1/review/submissions?limit=200${filter}`)).body.list.find(
    (c: { entry_id: string }) => c.entry_id === entryId,
  );

/** The submission's review detail once its automatic decision is recorded. */
const decided = (entryId: string) =>
  eventually(
    async () => {
      const r = (await h.api('GET', review(entryId))).body;
      return r.decision ? r : undefined;
    },
    15_000,
    'the automatic decision',
  );

const state = async (entryId: string) => (await h.api('GET', `/silo/v1/entries/${entryId}`)).body.state;

describe('approved automatically', () => {
  // Concurrent: each waits out the policy's overturn window (6 s).
  it.concurrent(
    'a digital signature whose trusted certificate names the signer, a listed director: the rule, its version and inputs recorded; the audit lists it',
    async () => {
      const s = await submitted([director('Élodie Marie', 'N GUESSAN DUPRE')], { key: ca.issue(SIGNER) });
      const shown = await decided(s.entryId);
      expect(shown.decision).toMatchObject({
        decision: 'approved',
        decided_by: null,
        automatic: {
          rule: 'director-certificate',
          version: 7,
          inputs: {
            conditions: { 'certificate-names-director': true, 'name-matches': true, 'company-active': true },
          },
        },
      });
      expect(shown.decision.reason).toContain('rule director-certificate');
      expect(shown.signer_check).toEqual({
        result: 'pass',
        director: { name: 'Élodie Marie N GUESSAN DUPRE', role: 'Présidente' },
      });
      expect(shown.signature).toMatchObject({
        kind: 'digital-signature',
        names_signer: true,
        director: { result: 'pass' },
        certificate: { trusted: true, names: { given: 'Élodie', surname: "N'Guessan-Dupré" } },
      });
      // Not in the queue; in the decision audit, by the policy.
      expect(await queueCard(s.entryId)).toBeUndefined();
      const audit = (await h.api('GET', `/operators/v1/access-log?silo_entry_id=${s.entryId}`)).body.list;
      expect(audit.filter((l: { action: string }) => l.action === 'decision')).toEqual([
        expect.objectContaining({
          operator_id: null,
          operator_name: 'decision policy',
          detail: expect.objectContaining({
            decision: 'approved',
            policy_rule: 'director-certificate',
            policy_version: 7,
          }),
        }),
      ]);
      // Held for the policy's window, then the registration runs on.
      const until = Date.parse(shown.decision.automatic.runs_on_at);
      expect(until - Date.parse(shown.decision.decided_at)).toBe(6_000);
      // Open to overturn a little less long (a quarter of a short window: the clocks of the API and Temporal differ).
      expect(until - Date.parse(shown.decision.automatic.overturnable_until)).toBe(1_500);
      expect(await state(s.entryId)).toBe('submitted');
      await eventually(async () => (await state(s.entryId)) === 'completed', 30_000, 'the registration completed');
      expect(Date.now()).toBeGreaterThanOrEqual(until);
    },
  );

  it.concurrent(
    'an operator overturns it within its window: the registration waits for a new submission, never running on',
    async () => {
      const s = await submitted([director('Élodie', "N'Guessan-Dupré")], { key: ca.issue(SIGNER) });
      const auto = (await decided(s.entryId)).decision;
      // A while into the window: without it, the registration would have run on by now.
      await new Promise((done) => setTimeout(done, 1_500));
      expect(await state(s.entryId)).toBe('submitted');
      const r = await h.api('POST', `${entry(s.entryId)}/decision`, {
        approved: false,
        reason: 'the signer says she did not sign',
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ decision: 'rejected', overturns: 'automatic-approval' });
      const shown = (await h.api('GET', review(s.entryId))).body;
      expect(shown.decisions).toEqual([
        expect.objectContaining({ decision: 'rejected', overturns: auto.id, decided_by: expect.any(Object) }),
        expect.objectContaining({ decision: 'approved', decided_by: null, automatic: expect.any(Object) }),
      ]);
      expect(shown.awaiting_decision).toBe(false); // reopened: the signer submits anew
      // Past the window, still waiting: for a new submission.
      await new Promise((done) => setTimeout(done, Date.parse(auto.automatic.overturnable_until) - Date.now() + 1_500));
      expect(await state(s.entryId)).toBe('processing');
      const job = (await h.api('GET', `/transform/v1/jobs/${(await h.api('GET', review(s.entryId))).body.job_id}`))
        .body;
      expect(job).toMatchObject({ status: 'WAIT', waiting_for: 'resubmission' });
      // The decision audit: the policy's approval and the operator's rejection overturning it.
      const audit = (await h.api('GET', `/operators/v1/access-log?silo_entry_id=${s.entryId}`)).body.list;
      expect(
        audit
          .filter((l: { action: string }) => l.action === 'decision')
          .map((l: { operator_name: string }) => l.operator_name),
      ).toEqual(['decision policy', expect.not.stringMatching(/decision policy/)]);
    },
  );
});

describe('to the operators, with the checks shown and filterable', () => {
  it('a listed director signing in the app (a name binds no one): pass, drawn or typed', async () => {
    const s = await submitted([director('Élodie', "N'GUESSAN-DUPRÉ")], 'in-app');
    const card = await queueCard(s.entryId, '&signer_check=pass');
    expect(card?.checks).toMatchObject({
      signer_check: { result: 'pass' },
      signature: { kind: 'in-app', via: 'typed' },
    });
    expect(await queueCard(s.entryId, '&signer_check=fail')).toBeUndefined();
  });

  it('a self-signed certificate naming the director: recorded, not trusted, to a person', async () => {
    const s = await submitted([director('Élodie', "N'Guessan-Dupré")], {
      key: generateSelfSigned(`${SIGNER.given} ${SIGNER.surname}`),
    });
    const shown = (await h.api('GET', review(s.entryId))).body;
    expect(shown).toMatchObject({ awaiting_decision: true, decision: null });
    expect(shown.signature).toMatchObject({
      kind: 'digital-signature',
      names_signer: true,
      certificate: { trusted: false, names: { common: "Élodie N'Guessan-Dupré" } },
    });
  });

  it('a trusted certificate of a signer who is not a director: fail, with the reason, under signer_check=fail', async () => {
    const s = await submitted(
      [director('Paul', 'DURAND', 'Président'), director('Zoé', 'ROUX', 'Directrice générale')],
      {
        key: ca.issue(SIGNER),
      },
    );
    const card = await queueCard(s.entryId, '&signer_check=fail');
    expect(card?.checks.signer_check).toEqual({
      result: 'fail',
      code: 'not-listed',
      reason: expect.stringContaining('not among the 2 natural-person director(s)'),
      listed: [
        { name: 'Paul DURAND', role: 'Président' },
        { name: 'Zoé ROUX', role: 'Directrice générale' },
      ],
    });
    expect(card?.checks.signature).toMatchObject({ names_signer: true, director: { result: 'fail' } });
  });

  it('the register out of reach (checked again later, then approved), or the company not public: unavailable, to a person', async () => {
    h.sims.recherche.setFaults({ errorRates: { 503: 1 }, count: 1 });
    const down = await submitted([director('Élodie', "N'Guessan-Dupré")], { key: ca.issue(SIGNER) });
    expect((await queueCard(down.entryId, '&signer_check=unavailable'))?.checks.signer_check).toEqual({
      result: 'unavailable',
      code: 'no-answer',
      reason: expect.stringContaining('503'),
    });
    h.sims.recherche.setFaults(undefined);
    // Checked again in the background once the register answers, and the policy applied: approved automatically.
    expect(await checkAgain(h.signing, { max: 10, olderThanMs: 0 })).toEqual({ checked: 1, approved: 1 });
    const again = (await h.api('GET', review(down.entryId))).body;
    // Or when an operator opens one: what the register says now.
    h.sims.recherche.setFaults({ errorRates: { 503: 1 }, count: 1 });
    const opened = await submitted([director('Élodie', "N'Guessan-Dupré")], 'in-app');
    expect((await queueCard(opened.entryId))?.checks.signer_check).toMatchObject({ code: 'no-answer' });
    expect((await h.api('GET', review(opened.entryId))).body.signer_check).toMatchObject({ result: 'pass' });
    expect((await queueCard(opened.entryId))?.checks.signer_check).toMatchObject({ result: 'pass' });
    expect(again.signer_check).toMatchObject({ result: 'pass' });
    expect(again.decision).toMatchObject({ decision: 'approved', automatic: { rule: 'director-certificate' } });
    expect(await checkAgain(h.signing, { max: 10, olderThanMs: 0 })).toEqual({ checked: 0, approved: 0 });
    const hidden = await submitted('not public', { key: ca.issue(SIGNER) });
    expect((await queueCard(hidden.entryId, '&signer_check=unavailable'))?.checks.signer_check).toEqual({
      result: 'unavailable',
      code: 'not-public',
      reason: expect.stringContaining('not public'),
    });
  });
});
