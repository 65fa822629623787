// The platform's operators from the command line, for whoever holds the platform's shell: the first operator-admin
// (after that, operator-admins use operators/v1), a credential when every admin's has expired, a revocation.
//   npm run operator:create -- --name "<person>" [--roles decide,admin]
//   npm run operator:credential -- --operator-id <uuid>
//   npm run operator:list
//   npm run operator:revoke -- --credential-id <uuid>
// Secrets are printed once, on creation; each creation and revocation is in the access log, by "command line".
import { parseArgs } from 'node:util';
import { loadConfig } from '../platform/config';
import { OPERATOR_ROLES, listOperators, type OperatorRole } from '../platform/store/operators';
import { createOperator, issueCredential, withdrawCredential } from '../domain/operators/credentials';
import { DomainError } from '../domain/errors';
import { openStore } from './context';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const USAGE = `usage: npm run operator:create -- --name "<person>" [--roles ${OPERATOR_ROLES.join(',')}]
       npm run operator:credential -- --operator-id <uuid>
       npm run operator:list
       npm run operator:revoke -- --credential-id <uuid>`;

function fail(message?: string): never {
  if (message) console.error(message);
  console.error(USAGE);
  process.exit(2);
}

const [command, ...rest] = process.argv.slice(2);
let values: Record<string, string | undefined>;
try {
  values = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      roles: { type: 'string', default: 'decide' },
      'operator-id': { type: 'string' },
      'credential-id': { type: 'string' },
    },
  }).values as Record<string, string | undefined>;
} catch (err) {
  fail((err as Error).message);
}

const roles = (values.roles ?? 'decide').split(',').map((r) => r.trim());
const unknownRoles = roles.filter((r) => !(OPERATOR_ROLES as readonly string[]).includes(r));
const uuidOption = (name: string): string => {
  const v = values[name];
  if (!v || !UUID.test(v)) fail(`--${name} <uuid> is required`);
  return v;
};

let run: (db: Awaited<ReturnType<typeof openStore>>) => Promise<unknown>;
switch (command) {
  case 'create': {
    const name = values.name?.trim();
    if (!name) fail('--name is required: the person, as the audit shows them');
    if (unknownRoles.length) fail(`unknown role(s): ${unknownRoles.join(', ')}`);
    run = (db) => createOperator(db, null, { name, roles: roles as OperatorRole[] });
    break;
  }
  case 'credential': {
    const id = uuidOption('operator-id');
    run = (db) => issueCredential(db, null, id);
    break;
  }
  case 'list':
    run = (db) => listOperators(db).then((list) => ({ list }));
    break;
  case 'revoke': {
    const id = uuidOption('credential-id');
    run = (db) => withdrawCredential(db, { by: null, credentialId: id }).then(() => ({ revoked: id }));
    break;
  }
  default:
    fail();
}

const db = await openStore(loadConfig(), (m) => console.error(m)).catch((err: Error) => {
  console.error(`cannot open the store: ${err.message}`);
  process.exit(1);
});
try {
  console.log(JSON.stringify(await run(db), null, 2));
} catch (err) {
  if (!(err instanceof DomainError)) throw err;
  console.error(err.message);
  process.exitCode = 1;
} finally {
  await db.close();
}
