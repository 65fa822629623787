// Encryption at rest of personal documents (identity images, signed mandates): AES-256-GCM with a key ring.
// Each blob names the key that sealed it, so keys can rotate: new blobs use the active key, old ones stay readable.
// The associated data binds a blob to its row (entry and purpose): a blob copied into another row does not open.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const VERSION = 1;

export interface DataBox {
  seal(plain: Uint8Array, context: string): Buffer;
  open(sealed: Uint8Array, context: string): Buffer;
  readonly activeKeyId: string;
}

export class DataBoxError extends Error {}

/** keys: "kid:base64key,kid2:base64key"; the active one seals. */
export function parseKeyRing(spec: string): Map<string, Buffer> {
  const ring = new Map<string, Buffer>();
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const i = part.indexOf(':');
    const kid = part.slice(0, i);
    const key = Buffer.from(part.slice(i + 1), 'base64');
    if (i < 1 || !/^[A-Za-z0-9._-]{1,32}$/.test(kid)) throw new DataBoxError(`bad key id in "${kid}"`);
    if (key.length !== 32) throw new DataBoxError(`key ${kid} must be 32 bytes (base64), got ${key.length}`);
    ring.set(kid, key);
  }
  if (ring.size === 0) throw new DataBoxError('no data encryption key configured');
  return ring;
}

export function createDataBox(ring: Map<string, Buffer>, activeKeyId: string): DataBox {
  const active = ring.get(activeKeyId);
  if (!active) throw new DataBoxError(`the active key ${activeKeyId} is not in the key ring`);
  return {
    activeKeyId,
    seal(plain, context) {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', active, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      const kid = Buffer.from(activeKeyId);
      return Buffer.concat([Buffer.from([VERSION, kid.length]), kid, iv, cipher.getAuthTag(), body]);
    },
    open(sealed, context) {
      const buf = Buffer.from(sealed);
      if (buf[0] !== VERSION) throw new DataBoxError('not a sealed blob (unknown version)');
      const kidLen = buf[1]!;
      const kid = buf.subarray(2, 2 + kidLen).toString();
      const key = ring.get(kid);
      if (!key) throw new DataBoxError(`blob sealed with key ${kid}, which is not in the key ring`);
      const at = 2 + kidLen;
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, buf.subarray(at, at + 12));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(buf.subarray(at + 12, at + 28));
      return Buffer.concat([decipher.update(buf.subarray(at + 28)), decipher.final()]);
    },
  };
}

/**
 * The key ring from config, or — for the embedded development stack only — a key generated once and kept in
 * `${dataDir}/keys/data-encryption.key`.
 */
export function dataBoxFromConfig(c: {
  DATA_ENCRYPTION_KEYS?: string;
  DATA_ENCRYPTION_KEY_ID?: string;
  dataDir: string;
}): DataBox {
  if (c.DATA_ENCRYPTION_KEYS) {
    const ring = parseKeyRing(c.DATA_ENCRYPTION_KEYS);
    return createDataBox(ring, c.DATA_ENCRYPTION_KEY_ID ?? [...ring.keys()].at(-1)!);
  }
  const file = path.join(c.dataDir, 'keys', 'data-encryption.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, `dev1:${crypto.randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  }
  const ring = parseKeyRing(fs.readFileSync(file, 'utf8').trim());
  return createDataBox(ring, [...ring.keys()].at(-1)!);
}
