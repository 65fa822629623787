import { describe, expect, it } from 'vitest';
import {
  checkParticipantId,
  formatParticipantId,
  frenchParticipantId,
  icdSchemes,
  InvalidParticipantIdError,
  normaliseParticipantId,
  parseParticipantId,
  smlDnsLabel,
  smlDnsName,
} from '../../../integrations/peppol/participant-id';

describe('participant identifiers', () => {
  it('parses the full and the bare form, lowercasing the value', () => {
    expect(parseParticipantId('iso6523-actorid-upis::9925:BE0123456789')).toEqual({
      scheme: 'iso6523-actorid-upis',
      value: '9925:be0123456789',
      icd: '9925',
      code: 'be0123456789',
    });
    expect(parseParticipantId('0225:ABC_1')).toMatchObject({ scheme: 'iso6523-actorid-upis', value: '0225:abc_1' });
    expect(normaliseParticipantId(' 0088:123ABC ')).toBe('iso6523-actorid-upis::0088:123abc');
    expect(formatParticipantId(parseParticipantId('0002:552032534'))).toBe('iso6523-actorid-upis::0002:552032534');
  });

  it('rejects other schemes and values that are not ICD:code', () => {
    expect(() => parseParticipantId('urn:oasis:names:tc:ebcore:partyid-type:iso6523::0225:1')).toThrow(
      InvalidParticipantIdError,
    );
    for (const bad of ['0225', '225:abc', '0225:', '0225:a b', 'iso6523-actorid-upis::abcd:1']) {
      expect(() => parseParticipantId(bad), bad).toThrow(InvalidParticipantIdError);
    }
  });

  it('derives the French participant 0225:<SIREN> and checks it against code list v9.7', () => {
    const p = frenchParticipantId('552032534');
    expect(formatParticipantId(p)).toBe('iso6523-actorid-upis::0225:552032534');
    expect(() => frenchParticipantId('55203253')).toThrow(/9-digit SIREN/);
    // Every directory address is a participant of its own; its characters are the 0225 scheme's.
    expect(frenchParticipantId('552032534_55203253400017_SERVICE-A').value).toBe(
      '0225:552032534_55203253400017_service-a',
    );
    expect(frenchParticipantId('552032534_FACTURES').value).toBe('0225:552032534_factures');
    expect(() => frenchParticipantId('552032534_a.b')).toThrow(/not a valid FR:CTC identifier/);
    expect(icdSchemes().get('0225')).toMatchObject({ schemeId: 'FR:CTC', state: 'active' });
  });

  it('refuses unknown or removed ICDs and codes outside the scheme rule', () => {
    expect(() => checkParticipantId(parseParticipantId('0000:123'))).toThrow(
      /not in the Peppol participant identifier scheme code list/,
    );
    expect(() => checkParticipantId(parseParticipantId('0037:12345678'))).toThrow(/removed/); // FI:OVT, removed in v9.7
    expect(() => checkParticipantId(parseParticipantId('0225:abc.def'))).toThrow(/not a valid FR:CTC/);
    expect(() => checkParticipantId(parseParticipantId(`0225:${'a'.repeat(131)}`))).toThrow(/not a valid FR:CTC/);
    expect(() => checkParticipantId(parseParticipantId('0002:12345'))).toThrow(/not a valid FR:SIRENE/);
    expect(checkParticipantId(parseParticipantId('0009:55203253400646')).icd).toBe('0009');
    expect(checkParticipantId(parseParticipantId('0225:Abc-_9')).code).toBe('abc-_9');
  });

  it('computes the SML DNS label from the value only (the scheme is not hashed)', () => {
    const vector = 'y7dzfxaf3d4cjz4kcgrxtec6twvcga4ky7zwa5boif6mswd4tdrq';
    expect(smlDnsLabel('0088:123abc')).toBe(vector);
    expect(smlDnsLabel('0088:123ABC')).toBe(vector); // values are case-insensitive
    expect(smlDnsLabel('iso6523-actorid-upis::0088:123abc')).not.toBe(vector);
    expect(smlDnsName(parseParticipantId('0088:123abc'), 'edelivery.tech.ec.europa.eu.')).toBe(
      `${vector}.iso6523-actorid-upis.edelivery.tech.ec.europa.eu`,
    );
    expect(smlDnsLabel('0225:552032534')).toMatch(/^[a-z2-7]{52}$/); // 256 bits → 52 base32 chars, no padding
  });
});

describe('check digits stated by the code list', () => {
  it.each([
    ['0002:552032534', true],
    ['0002:552032535', false], // SIREN, Luhn
    ['0009:55203253400646', true],
    ['0009:55203253400647', false], // SIRET
    ['0009:35600000049837', true], // La Poste: digit sum
    ['0208:0203201340', true],
    ['0208:0203201341', false], // Belgian enterprise number, mod 97
  ])('%s → %s', (id, ok) => {
    const check = () => checkParticipantId(parseParticipantId(id));
    if (ok) expect(check).not.toThrow();
    else expect(check).toThrow(/check digits/);
  });
});
