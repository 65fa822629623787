// `npm run key:create -- --workspace <name> [--scopes entries:rw,jobs:rw]`: creates a workspace (or reuses
// one by id with --workspace-id) and an API key, printing the secret once.
import { parseArgs } from 'node:util';
import { loadConfig } from '../platform/config';
import {
  DEFAULT_SCOPES,
  SCOPES,
  createApiKey,
  createWorkspace,
  workspaceExists,
  workspacesNamed,
  type Scope,
} from '../platform/store/workspaces';
import { openStore } from './context';

const USAGE = `usage: npm run key:create -- --workspace <name> | --workspace-id <uuid> [--name <key name>] [--scopes ${SCOPES.join(',')}]`;

function args() {
  try {
    return parseArgs({
      options: {
        workspace: { type: 'string' },
        'workspace-id': { type: 'string' },
        name: { type: 'string', default: 'default' },
        scopes: { type: 'string', default: DEFAULT_SCOPES.join(',') },
      },
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}
const values = args();

const scopes = values.scopes.split(',').map((s) => s.trim());
const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
const badId = values['workspace-id'] !== undefined && !/^[0-9a-f-]{36}$/i.test(values['workspace-id']);
if (unknown.length || badId || (!values.workspace && !values['workspace-id'])) {
  console.error(USAGE);
  if (unknown.length) console.error(`unknown scope(s): ${unknown.join(', ')}`);
  process.exit(2);
}

const db = await openStore(loadConfig(), (m) => console.error(m)).catch((err: Error) => {
  console.error(`cannot open the store: ${err.message}`);
  process.exit(1);
});
try {
  let workspaceId = values['workspace-id'];
  if (!workspaceId) {
    // The operators tell integrators apart by name (their queue's filter): a second one of a name is a mistake.
    const named = await workspacesNamed(db, values.workspace!);
    if (named.length) {
      console.error(
        `a workspace named "${values.workspace}" exists (${named.join(', ')}): add a key to it with --workspace-id ${named[0]}, or choose another name`,
      );
      process.exit(1);
    }
    workspaceId = (await createWorkspace(db, values.workspace!)).id;
  } else if (!(await workspaceExists(db, workspaceId))) {
    console.error(`workspace ${workspaceId} does not exist`);
    process.exit(1);
  }
  const key = await createApiKey(db, workspaceId, { name: values.name, scopes: scopes as Scope[] });
  console.log(JSON.stringify({ workspace_id: workspaceId, key_id: key.id, api_key: key.secret, scopes }, null, 2));
} finally {
  await db.close();
}
