// Whom a digital signature's certificate names, and whether the platform believes it: only a chain to a configured
// anchor does; a self-signed certificate naming the same person, or one from another CA, binds no one.
import { describe, expect, it } from 'vitest';
import { certificateFacts, loadTrustAnchors } from '../../../domain/review/signing-certificate';
import { generateSelfSigned } from '../../../platform/crypto/dev-certificates';
import { testCa } from '../../../bin/stack/signing-ca';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const der = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64'));

describe('a signing certificate', () => {
  const ca = testCa();
  const anchors = loadTrustAnchors(ca.file);

  it('issued by a configured anchor names its person and is trusted', async () => {
    const key = ca.issue({ given: 'Élodie', surname: 'Martin-Lefèvre' });
    const facts = await certificateFacts({ signer: der(key.certPem), others: [] }, anchors);
    expect(facts.names).toEqual({ given: 'Élodie', surname: 'Martin-Lefèvre', common: 'Élodie Martin-Lefèvre' });
    expect(facts.trusted, facts.trust).toBe(true);
    expect(facts.trust_code).toBe('trusted');
    expect(facts.issuer).toContain('CN=Test Qualified CA');
    expect(facts.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('self-signed, or from a CA not configured, is recorded and not trusted', async () => {
    const self = generateSelfSigned('Élodie Martin-Lefèvre');
    const other = testCa('Another CA').issue({ given: 'Élodie', surname: 'Martin-Lefèvre' });
    for (const [key, code] of [
      [self, 'self-signed'],
      [other, 'not-chained'],
    ] as const) {
      const facts = await certificateFacts({ signer: der(key.certPem), others: [] }, anchors);
      expect(facts).toMatchObject({ trusted: false, trust_code: code });
      expect(facts.trust).toMatch(/does not lead to a configured trust anchor/);
    }
  });

  it('with no anchors configured, none is trusted, and it says why', async () => {
    const facts = await certificateFacts(
      { signer: der(ca.issue({ given: 'A', surname: 'B' }).certPem), others: [] },
      [],
    );
    expect(facts).toMatchObject({ trusted: false, trust: expect.stringContaining('SIGNATURE_TRUST_ANCHORS_FILE') });
  });

  it("from the trusted CA but for a server's TLS, not for signing: not trusted", async () => {
    const tls = ca.issue({ given: 'Élodie', surname: 'Martin' }, 'tls');
    const facts = await certificateFacts({ signer: der(tls.certPem), others: [] }, anchors);
    expect(facts).toMatchObject({ trusted: false, trust_code: 'wrong-use' });
    expect(facts.trust).toMatch(/key usage does not allow signing/);
  });

  it('expired on the day of the check is not trusted', async () => {
    const key = ca.issue({ given: 'A', surname: 'B' });
    const later = new Date(Date.now() + 2 * 365 * 86_400_000);
    expect((await certificateFacts({ signer: der(key.certPem), others: [] }, anchors, later)).trusted).toBe(false);
  });

  it('an anchors file without a certificate stops the start, naming the file', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'anchors-')), 'empty.pem');
    fs.writeFileSync(file, 'not a certificate');
    expect(() => loadTrustAnchors(file)).toThrow(/empty\.pem: no PEM certificate/);
  });
});
