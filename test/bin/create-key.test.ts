// `npm run key:create` as the platform's staff run it, on an embedded store of its own.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const tsx = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'tsx');
const script = path.join(__dirname, '..', '..', 'bin', 'create-key.ts');

async function createKey(dataDir: string, ...args: string[]) {
  const { DATABASE_URL: _, ...env } = process.env; // the embedded store, in its own directory
  return run(tsx, [script, ...args], { env: { ...env, DATA_DIR: dataDir } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe('key:create', () => {
  it('refuses a second workspace of a name, naming the one to add a key to', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'create-key-'));
    try {
      const first = await createKey(dataDir, '--workspace', 'Cabinet Durand');
      expect(first.code, first.stderr).toBe(0);
      const { workspace_id } = JSON.parse(first.stdout) as { workspace_id: string };
      const again = await createKey(dataDir, '--workspace', 'Cabinet Durand');
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`a workspace named "Cabinet Durand" exists (${workspace_id})`);
      expect(again.stderr).toContain(`--workspace-id ${workspace_id}`);
      const another = await createKey(dataDir, '--workspace-id', workspace_id, '--name', 'second');
      expect(another.code, another.stderr).toBe(0);
      expect(JSON.parse(another.stdout)).toMatchObject({ workspace_id });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
