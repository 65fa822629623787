// `npm run secret:set -- --name <name>` (value on standard input) and `npm run secret:list`: the platform's own
// secrets in the encrypted store (platform/store/platform-secrets.ts). Values never appear on the command line or in output.
import { parseArgs } from 'node:util';
import { loadConfig } from '../platform/config';
import {
  PLATFORM_SECRETS,
  listPlatformSecrets,
  putPlatformSecret,
  type PlatformSecretName,
} from '../platform/store/platform-secrets';
import { dataBoxFromConfig } from '../platform/crypto/data-box';
import { openStore } from './context';

const names = Object.keys(PLATFORM_SECRETS) as PlatformSecretName[];
const usage = `usage: printf %s "$SECRET" | npm run secret:set -- --name ${names.join('|')}\n       npm run secret:list`;
const [command, ...rest] = process.argv.slice(2);
let name: PlatformSecretName | undefined;
if (command === 'set') {
  try {
    const v = parseArgs({ args: rest, options: { name: { type: 'string' } } }).values.name;
    if (names.includes(v as PlatformSecretName)) name = v as PlatformSecretName;
  } catch {
    // reported below
  }
}
if ((command === 'set' && !name) || (command !== 'set' && command !== 'list')) {
  console.error(usage);
  process.exit(2);
}

let value = '';
if (name) {
  for await (const chunk of process.stdin) value += chunk;
  value = value.replace(/\r?\n$/, '');
  if (!value) {
    console.error('no value on standard input');
    process.exit(2);
  }
}
const config = loadConfig();
const db = await openStore(config, (m) => console.error(m));
try {
  if (name) {
    await putPlatformSecret(db, dataBoxFromConfig(config), name, value);
    console.log(`stored ${name} (${PLATFORM_SECRETS[name]}), encrypted; restart the processes to use it`);
  } else {
    console.log(JSON.stringify(await listPlatformSecrets(db), null, 2));
  }
} finally {
  await db.close();
}
