import { describe, expect, it } from 'vitest';
import { frenchParty, sirenOf } from '../../../domain/party/gobl-party';
import { party } from '../../../bin/stack/sample-parties';

const issues = (value: unknown) => {
  const r = frenchParty.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('GOBL org/party for a French company', () => {
  const { $schema: _s, ...danone } = party('552032534');

  it('accepts a complete party and finds its SIREN', () => {
    expect(issues(danone)).toEqual([]);
    expect(sirenOf(frenchParty.parse(danone))).toBe('552032534');
  });

  it('rejects a VAT key inconsistent with the SIREN', () => {
    expect(issues({ ...danone, tax_id: { country: 'FR', code: '28552032534' } })).toEqual([
      'tax_id.code: invalid French VAT code: key 28 does not match SIREN 552032534 (expected 27)',
    ]);
  });

  it('rejects a SIREN identity differing from the VAT SIREN', () => {
    const p = { ...danone, identities: [{ type: 'SIREN', code: '542051180' }] };
    expect(issues(p)).toEqual([
      'identities.0.code: SIREN 542051180 differs from the SIREN in the VAT code (552032534)',
    ]);
  });

  it('rejects an invalid SIREN identity and a missing one', () => {
    expect(issues({ ...danone, identities: [{ type: 'SIREN', code: '552032535' }] })).toContain(
      'identities.0.code: 552032535 is not a valid SIREN (9 digits, Luhn)',
    );
    expect(issues({ ...danone, identities: [] })).toContain(
      'identities: exactly one identity of type SIREN is required',
    );
  });

  it('rejects an invalid SIRET identity', () => {
    const p = { ...danone, identities: [...danone.identities, { type: 'SIRET', code: '55203253400647' }] };
    expect(issues(p)).toEqual(['identities.1.code: 55203253400647 is not a valid SIRET']);
  });

  it('rejects non-French parties, unknown fields and wrong types', () => {
    expect(issues({ ...danone, tax_id: { country: 'BE', code: '0123456749' } })).toEqual([
      'tax_id.country: only French parties (FR) can be registered',
    ]);
    expect(issues({ ...danone, colour: 'blue' })[0]).toMatch(/Unrecognized key.*colour/);
    expect(issues({ ...danone, name: 42 })[0]).toMatch(/^name: /);
    expect(issues({ ...danone, emails: [{ addr: 'not-an-email' }] })[0]).toMatch(/^emails.0.addr: /);
  });
});
