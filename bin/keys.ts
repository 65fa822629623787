// `npm run key:list -- --workspace-id <uuid>` and `npm run key:revoke -- --key-id <uuid>`: an operator's view of
// API keys from the command line (the admin/v1 API does the same within a workspace). Secrets are never shown.
import { parseArgs } from 'node:util';
import { loadConfig } from '../platform/config';
import { listApiKeys, revokeApiKey } from '../platform/store/workspaces';
import { openStore } from './context';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const [command, ...rest] = process.argv.slice(2);
const usage = 'usage: npm run key:list -- --workspace-id <uuid> | npm run key:revoke -- --key-id <uuid>';

function option(name: string): string {
  try {
    const v = parseArgs({ args: rest, options: { [name]: { type: 'string' } } }).values[name];
    if (typeof v === 'string' && UUID.test(v)) return v;
  } catch {
    // reported below
  }
  console.error(usage);
  process.exit(2);
}

if (command !== 'list' && command !== 'revoke') {
  console.error(usage);
  process.exit(2);
}
const id = option(command === 'list' ? 'workspace-id' : 'key-id');
const db = await openStore(loadConfig(), (m) => console.error(m)).catch((err: Error) => {
  console.error(`cannot open the store: ${err.message}`);
  process.exit(1);
});
try {
  if (command === 'list') {
    console.log(JSON.stringify(await listApiKeys(db, id), null, 2));
  } else if (await revokeApiKey(db, id)) {
    console.log(`revoked ${id}`);
  } else {
    console.error(`no active key ${id}`);
    process.exitCode = 1;
  }
} finally {
  await db.close();
}
