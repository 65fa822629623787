// One throw-away sealing certificate per test process (generating RSA keys is slow).
import { generateSelfSigned } from '../../platform/crypto/dev-certificates';
import type { SealKey } from '../../domain/mandate-document/seal';

let key: SealKey | undefined;
export const testSealKey = (): SealKey => (key ??= generateSelfSigned('Test PA (mandate seal)'));
