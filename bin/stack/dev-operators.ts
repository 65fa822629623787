// The two development operators `npm start` prints: A decides and manages operators, B decides, so that a decision
// needing a second operator can be tried on the embedded stack. Their credentials are kept in data/ (as the dev key
// is), and issued again when one has expired or was revoked.
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../platform/store/db';
import { findCredential, listOperators, type OperatorRole } from '../../platform/store/operators';
import { createOperator, issueCredential } from '../../domain/operators/credentials';

const DEV_OPERATORS: { file: string; name: string; roles: OperatorRole[] }[] = [
  { file: 'dev-operator-a', name: 'Dev operator A', roles: ['decide', 'admin'] },
  { file: 'dev-operator-b', name: 'Dev operator B', roles: ['decide'] },
];

export interface DevOperator {
  name: string;
  roles: OperatorRole[];
  /** The file holding the credential. */
  file: string;
  credential: string;
}

export async function ensureDevOperators(db: Db, dataDir: string): Promise<DevOperator[]> {
  const out: DevOperator[] = [];
  for (const dev of DEV_OPERATORS) {
    const file = path.join(dataDir, dev.file);
    let credential = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
    if (!credential || !(await findCredential(db, credential))) {
      const existing = (await listOperators(db)).find((o) => o.name === dev.name && o.created_by === null);
      credential = existing
        ? (await issueCredential(db, null, existing.id)).credential
        : (await createOperator(db, null, { name: dev.name, roles: dev.roles })).credential;
      fs.writeFileSync(file, `${credential}\n`, { mode: 0o600 });
    }
    out.push({ name: dev.name, roles: dev.roles, file, credential });
  }
  return out;
}
