import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDataBox, parseKeyRing } from '../../../platform/crypto/data-box';

const key = () => crypto.randomBytes(32).toString('base64');

describe('data box (AES-256-GCM at rest)', () => {
  const ring = parseKeyRing(`k1:${key()},k2:${key()}`);
  const box = createDataBox(ring, 'k2');

  it('round-trips and hides the plaintext', () => {
    const plain = Buffer.from('Élodie N’Guessan-Dupré, CNI X4RTBPFW4');
    const sealed = box.seal(plain, 'identity:e1:front');
    expect(sealed.includes(plain)).toBe(false);
    expect(box.open(sealed, 'identity:e1:front')).toEqual(plain);
  });

  it('names its key, so an older key still opens old blobs after rotation', () => {
    const old = createDataBox(ring, 'k1').seal(Buffer.from('old'), 'c');
    expect(box.open(old, 'c').toString()).toBe('old');
    expect(createDataBox(parseKeyRing(`k3:${key()}`), 'k3').open.bind(null, old, 'c')).toThrow(
      /key k1, which is not in the key ring/,
    );
  });

  it('refuses a blob moved to another row, or tampered with', () => {
    const sealed = box.seal(Buffer.from('mandate'), 'signed-mandate:e1');
    expect(() => box.open(sealed, 'signed-mandate:e2')).toThrow();
    sealed[sealed.length - 1]! ^= 1;
    expect(() => box.open(sealed, 'signed-mandate:e1')).toThrow();
  });

  it('rejects malformed key rings', () => {
    expect(() => parseKeyRing('k1:c2hvcnQ=')).toThrow(/32 bytes/);
    expect(() => parseKeyRing('')).toThrow(/no data encryption key/);
    expect(() => createDataBox(ring, 'nope')).toThrow(/not in the key ring/);
  });
});
