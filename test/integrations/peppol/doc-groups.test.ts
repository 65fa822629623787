import { describe, expect, it } from 'vitest';
import { docGroup, isDocGroup } from '../../../integrations/peppol/doc-groups';

describe('doc groups (code list v9.7)', () => {
  it('france: the eight France document types, each with the regulated and non-regulated processes', () => {
    const g = docGroup('france');
    expect(g.map((d) => d.name).sort()).toEqual([
      'France CDAR',
      'France CII Invoice CIUS',
      'France CII Invoice Extension',
      'France Factur-X',
      'France UBL Credit Note CIUS',
      'France UBL Credit Note Extension',
      'France UBL Invoice CIUS',
      'France UBL Invoice Extension',
    ]);
    for (const d of g) {
      expect(d.scheme).toBe('busdox-docid-qns');
      expect(d.processes).toEqual([
        { scheme: 'cenbii-procid-ubl', value: 'urn:peppol:france:billing:regulated' },
        { scheme: 'cenbii-procid-ubl', value: 'urn:peppol:france:billing:non-regulated' },
      ]);
    }
    expect(g.map((d) => d.value)).toContain(
      'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:peppol:france:billing:cius:1.0::2.1',
    );
    expect(g.map((d) => d.value)).toContain(
      'urn:peppol:doctype:pdf+xml##urn:cen.eu:en16931:2017#conformant#urn:peppol:france:billing:Factur-X:1.0::D22B',
    );
  });

  it('ubl-invoice: BIS Billing 3.0 UBL Invoice and CreditNote with the billing process only', () => {
    const g = docGroup('ubl-invoice');
    expect(g.map((d) => d.value)).toEqual([
      'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1',
      'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1',
    ]);
    for (const d of g)
      expect(d.processes).toEqual([
        { scheme: 'cenbii-procid-ubl', value: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0' },
      ]);
  });

  it('knows only its groups', () => {
    expect(isDocGroup('france')).toBe(true);
    expect(isDocGroup('ubl-invoice')).toBe(true);
    expect(isDocGroup('France')).toBe(false);
  });
});
