// Which names the Temporal UI may show: a legal person's, never a name that may be a person's.
import { describe, expect, it } from 'vitest';
import { legalPersonName } from '../../../domain/party/legal-forms';
import { runSummary } from '../../../domain/jobs/jobs';

describe('legalPersonName', () => {
  it("gives a name stating a société's form, however it is written", () => {
    expect(legalPersonName('Danone SA')).toBe('Danone SA');
    expect(legalPersonName('  Société A.B.C. S.A.R.L. ')).toBe('Société A.B.C. S.A.R.L.');
    expect(legalPersonName('BOULANGERIE DUPONT (SASU)')).toBe('BOULANGERIE DUPONT (SASU)');
    expect(legalPersonName('SAS Atelier Nord')).toBe('SAS Atelier Nord');
  });

  it("gives none for a sole trader's name, or a name whose form is unknown", () => {
    expect(legalPersonName('Jean Martin EI')).toBeUndefined();
    expect(legalPersonName('Martin Plomberie EIRL')).toBeUndefined();
    expect(legalPersonName('Jean Martin')).toBeUndefined();
    expect(legalPersonName('SASKIA Durand')).toBeUndefined(); // a form must be a word of its own
    // A word that reads as a form, as a person's name or a phrase would have it: not in capitals, or inside the name.
    expect(legalPersonName('José Sá')).toBeUndefined();
    expect(legalPersonName('Dupont et Sa Cuisine')).toBeUndefined();
    expect(legalPersonName('Jean SA Martin')).toBeUndefined();
    expect(legalPersonName('Martin Plomberie (entreprise individuelle) SAS')).toBeUndefined();
    expect(legalPersonName('Jean Martin, E.I.')).toBeUndefined();
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
