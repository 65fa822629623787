// Names compared as an operator would: the same company whatever the case, accents, punctuation or legal form.
import { describe, expect, it } from 'vitest';
import { comparableName, recordMatches, type DirectoryRecord } from '../../../domain/review/directory-record';

const found = (name: string, status: 'active' | 'ceased' = 'active'): DirectoryRecord => ({
  outcome: 'found',
  record: { siren: '552032534', name, status },
  other_platforms: [],
});

describe('comparableName', () => {
  it('sets aside case, accents, punctuation, spacing and legal forms', () => {
    expect(comparableName('Danone SA')).toBe(comparableName('DANONE'));
    expect(comparableName("L'Oréal")).toBe(comparableName("L'OREAL"));
    expect(comparableName('  Boulangerie   Bêta — SARL ')).toBe('BOULANGERIE BETA');
    expect(comparableName('Société A.B.C.')).toBe('SOCIETE A B C');
  });
  it('still tells two companies apart', () => {
    expect(comparableName('Boulangerie Bêta')).not.toBe(comparableName('BOULANGERIE GAMMA'));
  });
});

describe('recordMatches', () => {
  it('says whether the name is the Annuaire’s and the company active; unknown without a record', () => {
    expect(recordMatches(found('CARREFOUR'), 'Carrefour SA')).toEqual({ nameMatches: true, companyActive: true });
    expect(recordMatches(found('CARREFOUR', 'ceased'), 'Auchan')).toEqual({ nameMatches: false, companyActive: false });
    expect(recordMatches({ outcome: 'not-found', reason: '' }, 'X')).toEqual({
      nameMatches: null,
      companyActive: false,
    });
    expect(recordMatches({ outcome: 'unavailable', reason: '' }, 'X')).toEqual({
      nameMatches: null,
      companyActive: null,
    });
  });
});
