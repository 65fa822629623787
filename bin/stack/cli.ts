// Locating the pinned Temporal CLI (v1.5.1) that scripts/setup.sh installs or finds on PATH.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEMPORAL_CLI_VERSION = '1.5.1';
const REPO_ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function cliVersion(bin: string): string | undefined {
  try {
    const out = execFileSync(bin, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return /temporal version (\S+)/.exec(out)?.[1];
  } catch {
    return undefined;
  }
}

/** TEMPORAL_CLI, then the repo's .tools/bin, then PATH — the first with the pinned version. */
export function findTemporalCli(explicit = process.env.TEMPORAL_CLI): string {
  const candidates = [
    explicit,
    path.join(REPO_ROOT, '.tools', 'bin', 'temporal'),
    ...(process.env.PATH ?? '')
      .split(path.delimiter)
      .filter(Boolean)
      .map((d) => path.join(d, 'temporal')),
  ].filter((c): c is string => !!c && fs.existsSync(c));
  for (const c of candidates) if (cliVersion(c) === TEMPORAL_CLI_VERSION) return c;
  throw new Error(
    `Temporal CLI ${TEMPORAL_CLI_VERSION} not found (looked at ${candidates.join(', ') || 'nothing'}); run "bash scripts/setup.sh" first`,
  );
}
