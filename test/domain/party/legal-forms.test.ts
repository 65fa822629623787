// Which names the Temporal UI may show: a legal person's, never a name that may be a person's.
import { describe, expect, it } from 'vitest';
import { legalPersonName } from '../../../domain/party/legal-forms';
import { runSummary } from '../../../domain/jobs/jobs';

describe('legalPersonName', () => {
  it("gives a name stating a société's form, however it is written", () => {
    expect(legalPersonName('Danone SA')).toBe('Danone SA');
    expect(legalPersonName('  Société A.B.C. s.a.r.l. ')).toBe('Société A.B.C. s.a.r.l.');
    expect(legalPersonName('BOULANGERIE DUPONT (SASU)')).toBe('BOULANGERIE DUPONT (SASU)');
  });

  it("gives none for a sole trader's name, or a name whose form is unknown", () => {
    expect(legalPersonName('Jean Martin EI')).toBeUndefined();
    expect(legalPersonName('Martin Plomberie EIRL')).toBeUndefined();
    expect(legalPersonName('Jean Martin')).toBeUndefined();
    expect(legalPersonName('SASKIA Durand')).toBeUndefined(); // a form must be a word of its own
    expect(legalPersonName(null)).toBeUndefined();
    expect(legalPersonName('')).toBeUndefined();
  });
});

describe('runSummary', () => {
  const job = { label: 'French party registration', entryId: 'e1' };
  it('names the SIREN, and the name of a legal person only', () => {
    expect(runSummary({ ...job, siren: '356000000', name: 'La Poste SA' })).toBe(
      'French party registration — SIREN 356000000 (La Poste SA)',
    );
    expect(runSummary({ ...job, siren: '356000000', name: 'Jean Martin EI' })).toBe(
      'French party registration — SIREN 356000000',
    );
    expect(runSummary({ ...job, siren: null, name: 'La Poste SA' })).toBe('French party registration — entry e1');
  });
});
