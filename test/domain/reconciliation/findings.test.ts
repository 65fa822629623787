// What the reconciliation concludes from what the directory and the SML's DNS say, case by case.
import { describe, expect, it } from 'vitest';
import type { AnnuaireLine } from '../../../domain/directory/annuaire';
import { judgeAddress, judgePage, judgeParticipant, type RecordedLine } from '../../../domain/reconciliation/findings';

const DAY = '2026-11-27';
const line = (l: Partial<AnnuaireLine> & { idInstance: number }): AnnuaireLine => ({
  identifiantAdressage: '123456782',
  siren: '123456782',
  matriculePlateforme: '0145',
  dateDebutEffet: '2026-10-01',
  dateFinEffet: null,
  ...l,
});
const rec: RecordedLine = { address: '123456782', siren: '123456782', entryId: 'e1', idInstance: 7 };
const facts = { recorded: rec, sirenLines: [], writtenSinceLastRun: false, ourMatricule: '0145', day: DAY };

describe('a page of our matricule', () => {
  it('sees our lines as recorded, and sends ours ended to be explained', () => {
    const recorded = new Map([[rec.address, rec]]);
    const v = judgePage([line({ idInstance: 7, dateFinEffet: '2026-12-01' })], recorded);
    expect(v.seen).toEqual(['123456782']);
    expect(v.ended).toHaveLength(1);
    expect(v.unknown).toEqual([]);
  });

  it('reports an open-ended line on our matricule that we never recorded, and leaves lines with an end alone', () => {
    const v = judgePage(
      [
        line({ idInstance: 9, identifiantAdressage: '999999999', siren: '999999999' }),
        line({ idInstance: 3, dateFinEffet: '2026-11-20' }),
      ],
      new Map([[rec.address, rec]]),
    );
    expect(v.unknown.map((f) => [f.kind, f.subject])).toEqual([['line-unknown', '999999999']]);
    expect(v.seen).toEqual([]);
  });
});

describe('why our line ended or went missing', () => {
  it('another platform starting on the address: moved out, with its matricule and day', () => {
    const ours = line({ idInstance: 7, dateFinEffet: '2026-12-01' });
    const theirs = line({ idInstance: 8, matriculePlateforme: '0099', dateDebutEffet: '2026-12-01' });
    expect(judgeAddress({ ...facts, shown: ours, sirenLines: [ours, theirs] })).toEqual({
      kind: 'moved-out',
      subject: '123456782',
      entryId: 'e1',
      details: { platform: '0099', day: '2026-12-01' },
    });
  });

  it('the fictive platform 9998 taking the SIREN back is no take-over', () => {
    const ours = line({ idInstance: 7, dateFinEffet: '2026-11-25' });
    const back = line({ idInstance: 8, matriculePlateforme: '9998', dateDebutEffet: '2026-11-25' });
    expect(judgeAddress({ ...facts, shown: ours, sirenLines: [ours, back], companyState: 'A' })?.kind).toBe(
      'line-changed',
    );
  });

  it('a ceased company: ceased, on the day our line ended', () => {
    const ours = line({ idInstance: 7, dateFinEffet: '2026-11-26' });
    expect(judgeAddress({ ...facts, shown: ours, sirenLines: [ours], companyState: 'C' })).toMatchObject({
      kind: 'ceased',
      details: { day: '2026-11-26' },
    });
  });

  it('masked without us, the company active: changed', () => {
    const masked = line({ idInstance: 7, masked: true });
    expect(judgeAddress({ ...facts, sirenLines: [masked], companyState: 'A' })).toMatchObject({
      kind: 'line-changed',
      details: { masked: true },
    });
  });

  it('not in the directory at all: pending while it may not show yet, missing after', () => {
    expect(judgeAddress({ ...facts, writtenSinceLastRun: true })?.kind).toBe('line-pending');
    expect(judgeAddress(facts)?.kind).toBe('line-missing');
  });

  it("our own fresh take-over not shown yet: pending, not the former platform's line taken for a successor", () => {
    const former = line({ idInstance: 5, matriculePlateforme: '0099', dateDebutEffet: '2025-01-01' });
    expect(judgeAddress({ ...facts, sirenLines: [former], writtenSinceLastRun: true })?.kind).toBe('line-pending');
  });

  it('a line of another platform that started before ours is the one ours replaced, not a successor', () => {
    const ours = line({ idInstance: 7, dateDebutEffet: '2026-10-01', dateFinEffet: '2026-11-26' });
    const before = line({
      idInstance: 5,
      matriculePlateforme: '0099',
      dateDebutEffet: '2025-01-01',
      dateFinEffet: null,
    });
    expect(judgeAddress({ ...facts, shown: ours, sirenLines: [ours, before], companyState: 'A' })?.kind).toBe(
      'line-changed',
    );
  });

  it('in force as recorded after all: nothing to say', () => {
    expect(judgeAddress({ ...facts, sirenLines: [line({ idInstance: 7 })] })).toBeUndefined();
  });
});

describe('a participant the SML List did not show', () => {
  const p = { participantId: 'iso6523-actorid-upis::0225:123456782', entryId: 'e1', ourSmpUrl: 'https://pa.fr/smp' };
  it('at another SMP: migrated; nowhere: missing; at ours: nothing', () => {
    expect(judgeParticipant({ ...p, smpUrls: ['https://other.example/'] })).toMatchObject({
      kind: 'participant-migrated',
      details: { smp: 'https://other.example/' },
    });
    expect(judgeParticipant({ ...p, smpUrls: [] })?.kind).toBe('participant-missing');
    expect(judgeParticipant({ ...p, smpUrls: ['https://PA.fr/smp/'] })).toBeUndefined();
  });
});
