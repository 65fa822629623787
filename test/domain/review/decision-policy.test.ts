// The decision policy's automatic approvals: only on a condition binding the signer's identity (the loader refuses a
// rule resting on names alone), never for a submission a four-eyes case names, recorded with the facts it read.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { automaticApproval, loadDecisionPolicy, policyWarnings } from '../../../domain/review/decision-policy';

function policyFile(policy: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'policy-')), 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  return file;
}

const FOUR_CASES = ['takeover', 'scan', 'name-mismatch', 'not-active'];
const RULE = { rule: 'director-certificate', when: ['certificate-names-director', 'name-matches', 'company-active'] };

/** Checks as the store keeps them: a registration by a trusted certificate naming the signer, a listed director. */
const certified = {
  purpose: 'registration',
  round: 1,
  evidence: 'digital-signature',
  nameMatches: true,
  companyActive: true,
  signer: { result: 'pass' },
  signature: {
    kind: 'digital-signature',
    certificate: { trusted: true },
    names_signer: true,
    director: { result: 'pass' },
  },
};

describe('the policy loader', () => {
  it('refuses a rule resting on names alone, naming the condition that would bind', () => {
    const file = policyFile({
      version: 3,
      second_approval: FOUR_CASES,
      auto_approve: [{ rule: 'director-by-name', when: ['signer-is-director', 'name-matches', 'company-active'] }],
    });
    expect(() => loadDecisionPolicy(file)).toThrow(
      /auto_approve\.0: rests on names alone: .*identity \(certificate-names-director\)/,
    );
  });

  it('refuses an unknown condition, a repeated rule and an empty rule', () => {
    const bad = (auto_approve: unknown) => policyFile({ version: 3, second_approval: [], auto_approve });
    expect(() => loadDecisionPolicy(bad([{ rule: 'x', when: ['certificate-names-director', 'gut-feeling'] }]))).toThrow(
      /auto_approve\.0\.when\.1/,
    );
    expect(() => loadDecisionPolicy(bad([RULE, RULE]))).toThrow(/a rule name must not repeat/);
    expect(() => loadDecisionPolicy(bad([{ rule: 'x', when: [] }]))).toThrow(/auto_approve\.0\.when/);
  });

  it('takes a rule with a binding condition', () => {
    const policy = loadDecisionPolicy(policyFile({ version: 3, second_approval: FOUR_CASES, auto_approve: [RULE] }));
    expect(policy.auto_approve).toEqual([RULE]);
  });
});

describe('an automatic approval', () => {
  const policy = loadDecisionPolicy(policyFile({ version: 3, second_approval: FOUR_CASES, auto_approve: [RULE] }));

  it('names its rule and version, and records the value of each condition with the checks it read', () => {
    expect(automaticApproval(policy, certified)).toEqual({
      rule: 'director-certificate',
      version: 3,
      inputs: {
        conditions: { 'certificate-names-director': true, 'name-matches': true, 'company-active': true },
        checks: certified,
      },
      windowMs: 3_600_000, // the policy's default overturn window, 1h
    });
  });

  it.each([
    [
      'a certificate the platform does not trust',
      { signature: { ...certified.signature, certificate: { trusted: false } } },
    ],
    [
      'a certificate naming someone other than the signer',
      { signature: { ...certified.signature, names_signer: false } },
    ],
    ['a certificate naming no director', { signature: { ...certified.signature, director: { result: 'fail' } } }],
    ['a drawn signature by a listed director', { evidence: 'in-app', signature: { kind: 'in-app', via: 'drawn' } }],
    ['a name that is not the Annuaire’s (four eyes)', { nameMatches: false }],
    ['a take-over (four eyes)', { purpose: 'takeover' }],
    ['a submission after a rejection (a person decides again)', { round: 2 }],
    ['a company the Annuaire does not show active (four eyes)', { companyActive: null }],
  ])('is not given for %s', (_what, change) => {
    expect(automaticApproval(policy, { ...certified, ...change })).toBeUndefined();
  });

  it('is never given under the default policy', () => {
    expect(automaticApproval(loadDecisionPolicy(), certified)).toBeUndefined();
  });
});

describe('the start warns of a policy that loads but may approve too much', () => {
  it('names the rule that would approve a ceased company or another name, and a window of 0s', () => {
    const policy = loadDecisionPolicy(
      policyFile({
        version: 1,
        second_approval: [],
        overturn_window: '0s',
        auto_approve: [{ rule: 'bare', when: ['certificate-names-director'] }],
      }),
    );
    expect(policyWarnings(policy)).toEqual([
      'rule bare may approve a company the Annuaire does not show active: add company-active',
      "rule bare may approve a company declared under another name than the Annuaire's: add name-matches",
      'overturn_window is 0s: no operator can overturn an automatic approval',
    ]);
    expect(policyWarnings(loadDecisionPolicy())).toEqual([]);
  });
});
