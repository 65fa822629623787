// The Temporal server settings our workflows rely on (deploy/temporal-dynamic-config.yaml, also the compose file's),
// as the dev server's flags and as the file Temporal's own server reads.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const DYNAMIC_CONFIG_FILE = fileURLToPath(new URL('../../deploy/temporal-dynamic-config.yaml', import.meta.url));

type Settings = Record<string, { value: unknown }[]>;

/** `--dynamic-config-value KEY=JSON` for each setting (the dev server takes no file). */
export function dynamicConfigFlags(): string[] {
  const settings = parse(fs.readFileSync(DYNAMIC_CONFIG_FILE, 'utf8')) as Settings;
  return Object.entries(settings).flatMap(([key, values]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(values[0]!.value)}`,
  ]);
}
