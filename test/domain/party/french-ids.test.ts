import { describe, expect, it } from 'vitest';
import { checkFrenchVat, frenchVatKey, isSiren, isSiret, luhnValid } from '../../../domain/party/french-ids';

describe('SIREN', () => {
  it.each([
    ['552032534', 'Danone'],
    ['542051180', 'TotalEnergies'],
    ['420495178', 'Air France'],
    ['855200887', 'Michelin'],
    ['356000000', 'La Poste'],
    ['732829320', 'a real registered company'],
  ])('accepts %s (%s)', (siren) => expect(isSiren(siren)).toBe(true));

  it.each([
    ['552032535', 'last digit changed'],
    ['123456789', 'fails Luhn'],
    ['55203253', 'eight digits'],
    ['5520325340', 'ten digits'],
    ['55203253A', 'a letter'],
    ['552 032 534', 'spaces'],
    ['', 'empty'],
  ])('rejects %s (%s)', (siren) => expect(isSiren(siren)).toBe(false));
});

describe('SIRET', () => {
  it('accepts Luhn-valid establishments', () => {
    expect(isSiret('55203253400646')).toBe(true);
    expect(isSiret('73282932000074')).toBe(true);
  });
  it('accepts La Poste establishments by their digit sum, and its head office by Luhn', () => {
    expect(isSiret('35600000049837')).toBe(true); // digit sum 45
    expect(isSiret('35600000000048')).toBe(true); // head office
    expect(isSiret('35600000049838')).toBe(false);
  });
  it('rejects wrong lengths and checksums', () => {
    expect(isSiret('55203253400647')).toBe(false);
    expect(isSiret('5520325340064')).toBe(false);
    expect(isSiret('552032534006460')).toBe(false);
  });
});

describe('French VAT number', () => {
  it('computes the key from the SIREN', () => {
    expect(frenchVatKey('552032534')).toBe('27'); // Danone: FR27552032534
    expect(frenchVatKey('542051180')).toBe('59'); // TotalEnergies: FR59542051180
  });
  it('accepts a consistent number with or without the FR prefix', () => {
    expect(checkFrenchVat('FR27552032534')).toEqual({ ok: true, siren: '552032534' });
    expect(checkFrenchVat('27552032534')).toEqual({ ok: true, siren: '552032534' });
    expect(checkFrenchVat('FR 27 552 032 534')).toEqual({ ok: true, siren: '552032534' });
  });
  it('explains what is wrong', () => {
    expect(checkFrenchVat('FR28552032534')).toEqual({
      ok: false,
      reason: 'key 28 does not match SIREN 552032534 (expected 27)',
    });
    expect(checkFrenchVat('FR32123456789')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('not a valid SIREN'),
    });
    expect(checkFrenchVat('FR2755203253')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('9-digit SIREN'),
    });
    expect(checkFrenchVat('FRAB552032534')).toMatchObject({ ok: false, reason: expect.stringContaining('numeric') });
  });
  it('Luhn helper agrees with known values', () => {
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
  });
});
